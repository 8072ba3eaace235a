using System;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Compaction;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Durability;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Engine;

/// <summary>
/// The engine under the typed store: upsert, read and delete of byte keys and byte values on a
/// <see cref="FasterKV{Key, Value}"/> of <see cref="SpanByte"/> records, safe for any number of
/// concurrent callers. It knows nothing of serialization. What its durability mode adds to each write is its
/// <see cref="IWriteJournal"/>'s; <see cref="StoreOpener"/> assembles and recovers it.
/// </summary>
/// <remarks>
/// Each operation is admitted by the <see cref="OperationGate"/> (so disposal can wait for it) and
/// rents a session from the bounded <see cref="SessionPool{TSession}"/>, both as <c>using</c> structs
/// that give them back also on exceptions. It issues the FASTER call through <see cref="PinnedRecord"/>
/// and awaits it through the <see cref="EpochNudger"/> if it went pending. Buffers passed in must stay unchanged until the returned task completes.
/// Cancellation applies while an operation waits for a session. Once the operation is issued to
/// FASTER it runs to completion, because abandoning it would hand its session to another caller
/// while FASTER still uses it.
/// </remarks>
internal sealed partial class FasterRecordStore : IDisposable, IAsyncDisposable
{
    private static readonly SessionVariableLengthStructSettings<SpanByte, SpanByte> SessionLengths = new() { valueLength = new TombstoneValueLength() };

    private readonly OpenedLog _log;
    private readonly RecordFunctions _functions;
    private readonly SessionPool<StoreSession> _sessions;
    private readonly OperationGate _gate = new();
    private readonly WriteBarrier _writes;
    private readonly KeyStripeLocks _keyStripes;

    // Counted by every write before it ends its turn: the compaction's copier reads them to skip a second check.
    private readonly StripeWriteCounts _stripeWrites;
    private readonly IWriteJournal _journal;
    private readonly bool _deleteLogOnClose;
    private readonly TaskCompletionSource _disposed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly ILogger _logger;
    private readonly EpochNudger _epochNudger;
    private readonly long _pageSizeBytes;
    private readonly int _segmentSizeBits;
    private readonly bool _valueChecksums;
    private readonly LiveRecordCopier _copier;
    private readonly CompactionDropRule _dropRule;
    private readonly LiveBytesEstimator _liveBytes;

    // The first failed disk write; from then on operations are refused and waits on the disk abandoned.
    private readonly StoreFault _fault;

    /// <summary>
    /// Assembles an engine from the parts <see cref="StoreOpener"/> opened; it starts nothing. Open stores through
    /// <see cref="StoreOpener"/>, which recovers the journal and starts the background work.
    /// </summary>
    /// <param name="log">The FASTER store and the files the engine owns.</param>
    /// <param name="keyStripes">The key stripes, shared with nothing else.</param>
    /// <param name="writes">The write barrier, shared with the journal's checkpoints and the compactor.</param>
    /// <param name="journal">What the durability mode does around each write.</param>
    /// <param name="settings">The validated settings.</param>
    /// <param name="logger">Receives the store's log events.</param>
    /// <param name="timeProvider">The clock of the compaction timer and the epoch nudger.</param>
    /// <param name="metrics">The store's instruments; the engine observes its state through them once open (<see cref="StartMetrics"/>).</param>
    internal FasterRecordStore(OpenedLog log, KeyStripeLocks keyStripes, WriteBarrier writes, IWriteJournal journal, StoreSettings settings, ILogger logger, TimeProvider timeProvider, StoreMetrics metrics)
    {
        Metrics = metrics;
        _log = log;
        _logger = logger;
        FasterKV = log.FasterKV;
        _fault = log.Fault;
        _keyStripes = keyStripes;
        _stripeWrites = new StripeWriteCounts(keyStripes.StripeCount);
        _writes = writes;
        _journal = journal;
        _deleteLogOnClose = settings.DeleteLogOnClose;
        _pageSizeBytes = settings.PageSizeBytes;
        _segmentSizeBits = settings.SegmentSizeBits;
        _valueChecksums = settings.ValueChecksums;
        _functions = new RecordFunctions(settings.ValueChecksums, settings.BeforeNewRecordLinked);
        _sessions = new SessionPool<StoreSession>(settings.SessionPoolSize, NewSession);
        _epochNudger = new EpochNudger(NewSession(), timeProvider);
        _dropRule = new CompactionDropRule(settings.DropOnCompaction, settings.ValueChecksums);
        _copier = new LiveRecordCopier(FasterKV, keyStripes, _stripeWrites, journal, NewSession, _epochNudger, _fault, (int)settings.PageSizeBytes, _dropRule, settings.CompactionGiveWay);
        _liveBytes = new LiveBytesEstimator(FasterKV, log.Device, NewSession, _fault, settings.PageSizeBits);
        Compactor = NewCompactor(settings, timeProvider);

        // Spare segment files beyond what the log grows into before its next pass would only hold disk.
        log.Spares?.KeepSparesWithin(() => Compactor.ThresholdBytes - Compactor.LogBytes);
    }

    public FasterKV<SpanByte, SpanByte> FasterKV { get; }

    /// <summary>Gets whether disposal has begun; every operation from then on throws <see cref="ObjectDisposedException"/>.</summary>
    public bool IsDisposed => _gate.IsClosed;

    /// <summary>Gets the write barrier, which checkpoints and compaction's back-pressure close; it times how long they held writers out.</summary>
    public WriteBarrier Writes => _writes;

    /// <summary>Gets the compactor; its timer runs when <see cref="StoreSettings.TimeBetweenLogCompactions"/> is set.</summary>
    public LogCompactor Compactor { get; }

    /// <summary>Gets the session pool. Tests hold its sessions to make operations wait deterministically.</summary>
    public SessionPool<StoreSession> Sessions => _sessions;

    /// <summary>Gets the layout of the files this store owns, or null when it runs on a caller's FasterKV.</summary>
    public LogFileLayout? Layout => _log.Layout;

    /// <summary>Gets the device keeping the log's emptied segment files for reuse; null on a caller's FasterKV.</summary>
    public SegmentRecyclingDevice? Spares => _log.Spares;

    /// <summary>Gets the store's instruments: the typed store records its operations there.</summary>
    public StoreMetrics Metrics { get; }

    /// <summary>Gets the journal of the store's durability mode; tests and tools read its parts.</summary>
    public IWriteJournal Journal => _journal;

    /// <summary>Gets the store's fault; tests report a disk failure through it.</summary>
    internal StoreFault Fault => _fault;

    /// <summary>FASTER cannot place a record larger than a page; checked here because FASTER's own check fires deep inside allocation.</summary>
    /// <exception cref="RecordTooLargeException">The record does not fit in a page.</exception>
    internal void EnsureRecordFits(int keyLength, int valueLength)
    {
        long recordSize = PinnedRecord.SizeInLog(keyLength, valueLength + (_valueChecksums ? ValueChecksum.Size : 0));
        if (recordSize > _pageSizeBytes)
        {
            throw new RecordTooLargeException(recordSize, _pageSizeBytes);
        }
    }

    private ValueChecksumMismatchException ChecksumMismatchAt(long address)
    {
        long segment = address >> _segmentSizeBits;
        string segmentFile = _log.Layout?.SegmentPath(segment) ?? $"segment {segment} of the supplied FasterKV's device";
        return new ValueChecksumMismatchException(address, segmentFile, address & ((1L << _segmentSizeBits) - 1));
    }

    /// <summary>
    /// Awaits an operation issued to FASTER in <paramref name="session"/>. If the disk fails meanwhile, gives up on it
    /// and its session (<see cref="EpochNudger.WaitAsync{T}(ValueTask{T}, StoreFault?)"/>): a failed disk may never
    /// answer, and the caller, and the store's dispose behind it, must not wait for it.
    /// </summary>
    /// <remarks>Not an async method: an operation FASTER completed at once, nearly every one, passes without two state machines.</remarks>
    /// <exception cref="StoreFaultedException">The store's disk failed while the operation waited.</exception>
    private ValueTask<T> WaitForIssuedAsync<T>(StoreSession session, ValueTask<T> operation) =>
        operation.IsCompletedSuccessfully ? new ValueTask<T>(operation.Result) : WaitForPendingAsync(session, operation);

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<T> WaitForPendingAsync<T>(StoreSession session, ValueTask<T> operation)
    {
        try
        {
            return await _epochNudger.WaitAsync(operation, _fault).ConfigureAwait(false);
        }
        catch (StoreFaultedException)
        {
            _sessions.Abandon(session);
            throw;
        }
    }

    /// <summary>A new FASTER session with this store's callbacks, whose reads copy no record anywhere.</summary>
    /// <remarks>
    /// A supplied FasterKV may be built to copy what its reads find on the disk to the log's tail or to a read cache
    /// (<c>LogSettings.ReadCopyOptions</c>, which FASTER 2.6.5 does not expose for the store to check). FASTER makes those
    /// copies outside the key stripes that order the store's writes and compaction's copies, and beside compaction such a
    /// store's reads found nothing for live keys (docs/benchmarks.md, "FASTER's read cache for hot keys, measured"), so the
    /// store's sessions turn copying off.
    /// </remarks>
    internal StoreSession NewSession() =>
        FasterKV.For(_functions).NewSession<RecordFunctions>(_functions, sessionVariableLengthStructSettings: SessionLengths, readCopyOptions: ReadCopyOptions.None);
}
