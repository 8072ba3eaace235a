using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Compaction;
using KeyValueStore.Diagnostics;
using KeyValueStore.Sessions;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Storage;

/// <summary>
/// The engine under the typed store: upsert, read and delete of byte keys and byte values on a
/// <see cref="FasterKV{Key, Value}"/> of <see cref="SpanByte"/> records, safe for any number of
/// concurrent callers. It knows nothing of serialization.
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
internal sealed class FasterRecordStore : IDisposable, IAsyncDisposable
{
    private static readonly SessionVariableLengthStructSettings<SpanByte, SpanByte> SessionLengths = new() { valueLength = new TombstoneValueLength() };

    private readonly RecordFunctions _functions = new();
    private readonly SessionPool<StoreSession> _sessions;
    private readonly OperationGate _gate = new();
    private readonly TruncationSafeDevice? _ownedDevice;
    private readonly bool _deleteLogOnClose;
    private readonly TaskCompletionSource _disposed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly LogFileLayout? _ownedLayout;
    private readonly ILogger _logger;
    private readonly EpochNudger _epochNudger;
    private readonly long _pageSizeBytes;

    /// <summary>Opens a store on files it creates and owns, as <paramref name="settings"/> say.</summary>
    public FasterRecordStore(StoreSettings settings, ILogger logger, TimeProvider? timeProvider = null)
        : this(OwnedLog.Create(settings), settings, logger, timeProvider)
    {
        Log.StoreOpened(logger, _ownedLayout!.LogBasePath, settings.PageSizeBytes, 1L << settings.MemorySizeBits, 1L << settings.SegmentSizeBits, settings.DeleteLogOnClose);
    }

    /// <summary>
    /// Opens a store on a <see cref="FasterKV{Key, Value}"/> built by the caller, who keeps owning it and its device.
    /// FASTER does not expose a store's page size, so the caller's settings must state it (<see cref="StoreSettings.PageSizeBits"/>);
    /// it is used to reject oversize records before FASTER sees them.
    /// </summary>
    public FasterRecordStore(FasterKV<SpanByte, SpanByte> fasterKV, StoreSettings settings, ILogger logger, TimeProvider? timeProvider = null)
        : this(new OwnedLog(fasterKV, null, null), settings, logger, timeProvider)
    {
        Log.StoreOpenedOnSuppliedFasterKV(logger);
    }

    private FasterRecordStore(OwnedLog log, StoreSettings settings, ILogger logger, TimeProvider? timeProvider)
    {
        timeProvider ??= TimeProvider.System;
        _logger = logger;
        FasterKV = log.FasterKV;
        _ownedDevice = log.Device;
        _ownedLayout = log.Layout;
        _deleteLogOnClose = settings.DeleteLogOnClose;
        _pageSizeBytes = settings.PageSizeBytes;
        _sessions = new SessionPool<StoreSession>(settings.SessionPoolSize, NewSession);
        _epochNudger = new EpochNudger(NewSession(), timeProvider);
        Compactor = StartCompactor(settings, timeProvider);
    }

    public FasterKV<SpanByte, SpanByte> FasterKV { get; }

    /// <summary>Gets the compactor; its timer runs when <see cref="StoreSettings.TimeBetweenLogCompactions"/> is set.</summary>
    public LogCompactor Compactor { get; }

    /// <summary>Gets the session pool. Tests hold its sessions to make operations wait deterministically.</summary>
    public SessionPool<StoreSession> Sessions => _sessions;

    /// <summary>Gets the layout of the files this store owns, or null when it runs on a caller's FasterKV.</summary>
    public LogFileLayout? Layout => _ownedLayout;

    public async ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, CancellationToken cancellationToken = default)
    {
        long recordSize = PinnedRecord.SizeInLog(key.Length, value.Length);
        if (recordSize > _pageSizeBytes)
        {
            // FASTER cannot place a record larger than a page; checked here because FASTER's own check
            // fires deep inside allocation.
            throw new RecordTooLargeException(recordSize, _pageSizeBytes);
        }

        using OperationGate.Admission admission = _gate.Enter(this);
        using SessionPool<StoreSession>.Lease lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false);
        var result = await _epochNudger.WaitAsync(PinnedRecord.UpsertAsync(lease.Session, key.Span, value.Span)).ConfigureAwait(false);
        while (result.Status.IsPending)
        {
            result = await _epochNudger.WaitAsync(result.CompleteAsync()).ConfigureAwait(false);
        }
    }

    /// <summary>Reads a key. When found, the value is in a pooled buffer the caller must <see cref="PooledBuffer.Return"/>.</summary>
    public async ValueTask<(bool Found, PooledBuffer Value)> ReadAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
    {
        using OperationGate.Admission admission = _gate.Enter(this);
        using SessionPool<StoreSession>.Lease lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false);
        var result = await _epochNudger.WaitAsync(PinnedRecord.ReadAsync(lease.Session, key.Span)).ConfigureAwait(false);
        (Status status, PooledBuffer value) = result.Complete();
        return status.Found ? (true, value) : (false, default);
    }

    /// <summary>Deletes a key. Returns true exactly when a live record existed, in memory or on disk.</summary>
    public async ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
    {
        using OperationGate.Admission admission = _gate.Enter(this);
        using SessionPool<StoreSession>.Lease lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false);
        var result = await _epochNudger.WaitAsync(PinnedRecord.DeleteAsync(lease.Session, key.Span)).ConfigureAwait(false);
        while (result.Status.IsPending)
        {
            result = await _epochNudger.WaitAsync(result.CompleteAsync()).ConfigureAwait(false);
        }

        return result.Status.Found;
    }

    /// <summary>Compacts the whole read-only part of the log now and deletes the segment files it emptied.</summary>
    public async Task<CompactionResult> CompactAsync(CancellationToken cancellationToken = default)
    {
        using OperationGate.Admission admission = _gate.Enter(this);
        return await Compactor.CompactNowAsync(cancellationToken).ConfigureAwait(false);
    }

    public void Dispose() => DisposeAsync().AsTask().GetAwaiter().GetResult();

    /// <summary>
    /// Stops admitting operations, stops the compactor (waiting for a compaction in progress), waits for the admitted operations, then releases sessions, FASTER and the
    /// device (which deletes the segment files when asked). Idempotent: every caller awaits the same disposal.
    /// </summary>
    public ValueTask DisposeAsync()
    {
        if (_gate.Close())
        {
            _ = ReleaseAfterDrainAsync();
        }

        return new ValueTask(_disposed.Task);
    }

    private async Task ReleaseAfterDrainAsync()
    {
        try
        {
            await Compactor.DisposeAsync().ConfigureAwait(false);
            await _gate.WhenDrained.ConfigureAwait(false);
            _sessions.Dispose();
            _epochNudger.Dispose();
            if (_ownedDevice is not null)
            {
                // Truncations run inside the FasterKV's epoch: let them finish before it goes.
                _ownedDevice.StopTruncations();
                FasterKV.Dispose();
                _ownedDevice.Dispose();
            }

            Log.StoreClosed(_logger, _ownedDevice is null ? "left to the caller" : _deleteLogOnClose ? "deleted" : "kept");
            _disposed.SetResult();
        }
        catch (Exception e)
        {
            _disposed.SetException(e);
        }
    }

    private LogCompactor StartCompactor(StoreSettings settings, TimeProvider? timeProvider)
    {
        var compactor = new LogCompactor(
            FasterKV,
            NewSession,
            _ownedLayout,
            settings.SegmentSizeBits,
            new CompactionThresholdPolicy(settings.InitialLogCompactionThresholdBytes),
            timeProvider ?? TimeProvider.System,
            _logger);
        if (settings.TimeBetweenLogCompactions is TimeSpan interval)
        {
            compactor.Start(interval);
        }

        return compactor;
    }

    private StoreSession NewSession() => FasterKV.For(_functions).NewSession<RecordFunctions>(_functions, sessionVariableLengthStructSettings: SessionLengths);

    /// <summary>The FASTER store, device and files a store runs on; device and layout are null when the caller owns them.</summary>
    private sealed record OwnedLog(FasterKV<SpanByte, SpanByte> FasterKV, TruncationSafeDevice? Device, LogFileLayout? Layout)
    {
        public static OwnedLog Create(StoreSettings settings)
        {
            var layout = new LogFileLayout(settings.LogDirectory, settings.LogFileNamePrefix);
            (FasterKV<SpanByte, SpanByte> fasterKV, TruncationSafeDevice device) = FasterLogFactory.Create(settings, layout);
            return new OwnedLog(fasterKV, device, layout);
        }
    }
}
