using System;
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
/// concurrent callers. It knows nothing of serialization. A durable store recovers its files when opened and
/// checkpoints them through its <see cref="Durability.Checkpointer"/>.
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

    private readonly RecordFunctions _functions;
    private readonly SessionPool<StoreSession> _sessions;
    private readonly OperationGate _gate = new();
    private readonly WriteBarrier _writes = new();
    private readonly KeyStripeLocks _keyStripes;
    private readonly TruncationSafeDevice? _ownedDevice;
    private readonly bool _deleteLogOnClose;
    private readonly TaskCompletionSource _disposed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly LogFileLayout? _ownedLayout;
    private readonly ILogger _logger;
    private readonly EpochNudger _epochNudger;
    private readonly long _pageSizeBytes;
    private readonly int _segmentSizeBits;
    private readonly bool _valueChecksums;
    private readonly Checkpointer? _checkpointer;
    private readonly StoreFileLock? _fileLock;

    // Commit mode only: every write is appended here, and applied once the log has committed it, in its stripe's log
    // order (FasterRecordStore.CommitMode.cs).
    private readonly WriteAheadLog? _writeAheadLog;
    private readonly ApplyTurns? _applyTurns;

    // The first failed disk write; from then on operations are refused and waits on the disk abandoned.
    private readonly StoreFault _fault;

    /// <summary>
    /// Opens a store on files it owns, as <paramref name="settings"/> say: new files, or for a durable store the files
    /// already in its directory, recovered to their latest checkpoint.
    /// </summary>
    /// <param name="settings">The validated settings.</param>
    /// <param name="logger">Receives the store's log events.</param>
    /// <param name="timeProvider">The clock of the compaction and checkpoint timers; the system clock when null.</param>
    /// <param name="format">What the records' bytes mean, recorded in a durable store's manifest; raw bytes when null.</param>
    public FasterRecordStore(StoreSettings settings, ILogger logger, TimeProvider? timeProvider = null, RecordFormat? format = null)
        : this(OwnedLog.Create(settings, format ?? RecordFormat.RawBytes, logger, timeProvider ?? TimeProvider.System), settings, logger, timeProvider)
    {
        StoreEvents.StoreOpened(logger, _ownedLayout!.LogBasePath, settings.PageSizeBytes, 1L << settings.MemorySizeBits, 1L << settings.SegmentSizeBits, settings.DeleteLogOnClose);
    }

    /// <summary>
    /// Opens a store on a <see cref="FasterKV{Key, Value}"/> built by the caller, who keeps owning it and its device.
    /// FASTER does not expose a store's page size, so the caller's settings must state it (<see cref="StoreSettings.PageSizeBits"/>);
    /// it is used to reject oversize records before FASTER sees them.
    /// </summary>
    public FasterRecordStore(FasterKV<SpanByte, SpanByte> fasterKV, StoreSettings settings, ILogger logger, TimeProvider? timeProvider = null)
        : this(OwnedLog.Supplied(fasterKV, settings), settings, logger, timeProvider)
    {
        StoreEvents.StoreOpenedOnSuppliedFasterKV(logger);
    }

    private FasterRecordStore(OwnedLog log, StoreSettings settings, ILogger logger, TimeProvider? timeProvider)
    {
        timeProvider ??= TimeProvider.System;
        _logger = logger;
        FasterKV = log.FasterKV;
        _keyStripes = new KeyStripeLocks(FasterKV.IndexSize);
        _ownedDevice = log.Device;
        _ownedLayout = log.Layout;
        _fileLock = log.Lock;
        _fault = log.Fault;
        _deleteLogOnClose = settings.DeleteLogOnClose;
        _pageSizeBytes = settings.PageSizeBytes;
        _segmentSizeBits = settings.SegmentSizeBits;
        _valueChecksums = settings.ValueChecksums;
        _functions = new RecordFunctions(settings.ValueChecksums);
        _sessions = new SessionPool<StoreSession>(settings.SessionPoolSize, NewSession);
        _epochNudger = new EpochNudger(NewSession(), timeProvider);
        if (settings.IsDurable)
        {
            bool commitMode = settings.Durability == DurabilityMode.Commit;
            _checkpointer = new Checkpointer(FasterKV, log.Layout!, log.CheckpointFiles!, _writes, commitMode ? log.WriteAheadLog : null, _fault, settings.Directories, settings.SegmentSizeBits, timeProvider, logger);
            if (log.WriteAheadLog is not null)
            {
                ReplayOrRelease(log.WriteAheadLog, log.ReplayFrom, settings.Durability, timeProvider);
                if (commitMode)
                {
                    _writeAheadLog = log.WriteAheadLog;
                    _applyTurns = new ApplyTurns(_keyStripes.StripeCount);
                    _writeAheadLog.StartGroupCommit();
                }
            }

            _checkpointer.Start(settings.CheckpointInterval);
        }

        Compactor = StartCompactor(settings, timeProvider);
    }

    public FasterKV<SpanByte, SpanByte> FasterKV { get; }

    /// <summary>Gets whether disposal has begun; every operation from then on throws <see cref="ObjectDisposedException"/>.</summary>
    public bool IsDisposed => _gate.IsClosed;

    /// <summary>Gets the compactor; its timer runs when <see cref="StoreSettings.TimeBetweenLogCompactions"/> is set.</summary>
    public LogCompactor Compactor { get; }

    /// <summary>Gets the session pool. Tests hold its sessions to make operations wait deterministically.</summary>
    public SessionPool<StoreSession> Sessions => _sessions;

    /// <summary>Gets the layout of the files this store owns, or null when it runs on a caller's FasterKV.</summary>
    public LogFileLayout? Layout => _ownedLayout;

    /// <summary>Gets the checkpointer of a durable store, or null.</summary>
    public Checkpointer? Checkpointer => _checkpointer;

    /// <summary>Gets the write-ahead log of a Commit-mode store, or null.</summary>
    public WriteAheadLog? WriteAheadLog => _writeAheadLog;

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
        string segmentFile = _ownedLayout?.SegmentPath(segment) ?? $"segment {segment} of the supplied FasterKV's device";
        return new ValueChecksumMismatchException(address, segmentFile, address & ((1L << _segmentSizeBits) - 1));
    }

    /// <summary>A new FASTER session with this store's callbacks.</summary>
    internal StoreSession NewSession() => FasterKV.For(_functions).NewSession<RecordFunctions>(_functions, sessionVariableLengthStructSettings: SessionLengths);
}
