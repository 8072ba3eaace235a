using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
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

    /// <summary>
    /// Writes a key's value. In <see cref="DurabilityMode.Commit"/> mode the write is committed to the write-ahead log
    /// first and applied after (<see cref="LogThenApplyAsync"/>).
    /// </summary>
    /// <exception cref="StoreFaultedException">The store's disk failed, before or while the write ran; it was not acknowledged.</exception>
    public async ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, CancellationToken cancellationToken = default)
    {
        EnsureRecordFits(key.Length, value.Length);
        _fault.ThrowIfFaulted();
        if (_applyTurns is not null)
        {
            await LogThenApplyAsync(key, value, isDelete: false, cancellationToken).ConfigureAwait(false);
            return;
        }

        using OperationGate.Admission admission = _gate.Enter(this);
        int stripe = _keyStripes.StripeOf(key.Span);
        byte[]? sealedValue = null;
        ReadOnlyMemory<byte> stored = value;
        if (_valueChecksums)
        {
            sealedValue = ValueChecksum.Seal(key.Span, value.Span, out int sealedLength);
            stored = sealedValue.AsMemory(0, sealedLength);
        }

        try
        {
            // One async method from admission to completion: a nested async helper would add a state-machine
            // allocation to every operation that waits (for a session, for the disk).
            using WriteAdmission write = await WriteAdmission.EnterAsync(_writes, cancellationToken).ConfigureAwait(false);
            using KeyStripeLocks.Held keyStripe = await _keyStripes.EnterAsync(stripe, cancellationToken).ConfigureAwait(false);
            using SessionPool<StoreSession>.Lease lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false);
            _fault.ThrowIfFaulted();
            var result = await WaitForWriteAsync(lease.Session, PinnedRecord.UpsertAsync(lease.Session, key.Span, stored.Span)).ConfigureAwait(false);
            while (result.Status.IsPending)
            {
                result = await WaitForWriteAsync(lease.Session, result.CompleteAsync()).ConfigureAwait(false);
            }
        }
        finally
        {
            if (sealedValue is not null)
            {
                System.Buffers.ArrayPool<byte>.Shared.Return(sealedValue);
            }
        }

        _checkpointer?.NoteWrite();
    }

    /// <summary>Reads a key. When found, the value is in a pooled buffer the caller must <see cref="PooledBuffer.Return"/>.</summary>
    /// <exception cref="ValueChecksumMismatchException">Value checksums are on and the stored value fails its checksum.</exception>
    public async ValueTask<(bool Found, PooledBuffer Value)> ReadAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
    {
        _fault.ThrowIfFaulted();
        using OperationGate.Admission admission = _gate.Enter(this);
        using SessionPool<StoreSession>.Lease lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false);
        return await ReadInSessionAsync(lease.Session, key).ConfigureAwait(false);
    }

    /// <summary>
    /// Reads a key and hands its value to <paramref name="decoder"/> while the pooled copy of it is still held; the copy
    /// goes back to the pool before this returns, so no caller ever holds it.
    /// </summary>
    /// <exception cref="ValueChecksumMismatchException">Value checksums are on and the stored value fails its checksum.</exception>
    public async ValueTask<(bool Found, T Value)> ReadAsync<T>(ReadOnlyMemory<byte> key, IValueDecoder<T> decoder, CancellationToken cancellationToken = default)
    {
        _fault.ThrowIfFaulted();
        using OperationGate.Admission admission = _gate.Enter(this);
        (bool found, PooledBuffer value) read;
        using (SessionPool<StoreSession>.Lease lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false))
        {
            read = await ReadInSessionAsync(lease.Session, key).ConfigureAwait(false);
        }

        return Decode(read, decoder);
    }

    /// <summary>
    /// Reads a key in <paramref name="session"/>. A read that finds nothing while the log's begin address moved is read
    /// again: FASTER 2.6.5 reports a record as not found when a compaction moves the begin address past it while the read
    /// waits for the disk (<c>ContinuePendingRead</c> gives up on an address below the begin address), though the
    /// compaction copied the live record to the tail first. Only reads that find nothing pay for the check.
    /// </summary>
    private async ValueTask<(bool Found, PooledBuffer Value)> ReadInSessionAsync(StoreSession session, ReadOnlyMemory<byte> key)
    {
        while (true)
        {
            long beginAddress = FasterKV.Log.BeginAddress;
            var result = await _epochNudger.WaitAsync(PinnedRecord.ReadAsync(session, key.Span)).ConfigureAwait(false);
            (bool found, PooledBuffer value) = OpenReadResult(key.Span, result);
            if (found || FasterKV.Log.BeginAddress == beginAddress)
            {
                return (found, value);
            }
        }
    }

    /// <summary>Decodes a read's pooled value, if any, and gives the buffer back whatever the decoder does.</summary>
    private static (bool Found, T Value) Decode<T>((bool Found, PooledBuffer Value) read, IValueDecoder<T> decoder)
    {
        if (!read.Found)
        {
            return (false, default!);
        }

        try
        {
            return (true, decoder.Decode(read.Value.Memory));
        }
        finally
        {
            read.Value.Return();
        }
    }

    /// <summary>Turns a completed read into (found, value), checking the value's checksum when the store keeps them.</summary>
    private (bool Found, PooledBuffer Value) OpenReadResult(ReadOnlySpan<byte> key, FasterKV<SpanByte, SpanByte>.ReadAsyncResult<SpanByte, PooledBuffer, Empty> result)
    {
        (Status status, PooledBuffer value) = result.Complete(out RecordMetadata record);

        // A read from a failing disk ends as "not found" (see FaultReportingDevice), which must not reach the caller.
        if (_fault.IsFaulted)
        {
            if (status.Found)
            {
                value.Return();
            }

            _fault.ThrowIfFaulted();
        }

        if (!status.Found)
        {
            return (false, default);
        }

        if (_valueChecksums && !ValueChecksum.TryOpen(key, ref value))
        {
            value.Return();
            throw ChecksumMismatchAt(record.Address);
        }

        return (true, value);
    }

    /// <summary>
    /// Deletes a key. Returns true exactly when a live record existed, in memory or on disk. In
    /// <see cref="DurabilityMode.Commit"/> mode the delete is committed to the write-ahead log first and applied after,
    /// also when the key turns out to be absent: that is known only once the delete runs.
    /// </summary>
    /// <exception cref="StoreFaultedException">The store's disk failed, before or while the delete ran; it was not acknowledged.</exception>
    public async ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
    {
        _fault.ThrowIfFaulted();
        if (_applyTurns is not null)
        {
            return await LogThenApplyAsync(key, default, isDelete: true, cancellationToken).ConfigureAwait(false);
        }

        using OperationGate.Admission admission = _gate.Enter(this);
        int stripe = _keyStripes.StripeOf(key.Span);
        bool found;
        using (WriteAdmission write = await WriteAdmission.EnterAsync(_writes, cancellationToken).ConfigureAwait(false))
        using (KeyStripeLocks.Held keyStripe = await _keyStripes.EnterAsync(stripe, cancellationToken).ConfigureAwait(false))
        using (SessionPool<StoreSession>.Lease lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false))
        {
            _fault.ThrowIfFaulted();
            var result = await WaitForWriteAsync(lease.Session, PinnedRecord.DeleteAsync(lease.Session, key.Span)).ConfigureAwait(false);
            while (result.Status.IsPending)
            {
                result = await WaitForWriteAsync(lease.Session, result.CompleteAsync()).ConfigureAwait(false);
            }

            found = result.Status.Found;
        }

        if (found)
        {
            _checkpointer?.NoteWrite();
        }

        return found;
    }

    /// <summary>Compacts the whole read-only part of the log now and deletes the segment files it emptied.</summary>
    public async Task<CompactionResult> CompactAsync(CancellationToken cancellationToken = default)
    {
        using OperationGate.Admission admission = _gate.Enter(this);
        return await Compactor.CompactNowAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Takes a checkpoint of a durable store now; completes when everything written before the call is on disk.</summary>
    /// <exception cref="StoreNotDurableException">The store is not durable.</exception>
    public async Task CheckpointAsync(CancellationToken cancellationToken = default)
    {
        using OperationGate.Admission admission = _gate.Enter(this);
        if (_checkpointer is null)
        {
            throw new StoreNotDurableException();
        }

        await _checkpointer.CheckpointAsync("on demand", cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Awaits a write issued to FASTER; if the disk fails meanwhile, gives up on it and its session (<see cref="EpochNudger.WaitAsync{T}(ValueTask{T}, StoreFault?)"/>).</summary>
    /// <exception cref="StoreFaultedException">The store's disk failed while the write waited.</exception>
    private async ValueTask<T> WaitForWriteAsync<T>(StoreSession session, ValueTask<T> operation)
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


    /// <summary>
    /// Replays the write-ahead log into the recovered store, before any caller can see it. A store no longer in Commit
    /// mode then checkpoints everything and deletes the log. A damaged log releases the store's files and throws.
    /// </summary>
    private void ReplayOrRelease(WriteAheadLog writeAheadLog, WalPosition from, DurabilityMode durability, TimeProvider timeProvider)
    {
        try
        {
            long started = timeProvider.GetTimestamp();
            long until = writeAheadLog.CommittedUntilAddress;

            // Off the caller's synchronization context: replay awaits FASTER, and a constructor cannot be async.
            WalReplayResult replayed = Task.Run(() => writeAheadLog.ReplayAsync(from, ApplyReplayedAsync)).GetAwaiter().GetResult();
            _fault.ThrowIfFaulted();
            StoreEvents.WriteAheadLogReplayed(_logger, from.Address, until, replayed.Transactions, replayed.Writes, replayed.IncompleteTransactions, timeProvider.GetElapsedTime(started));
            if (durability != DurabilityMode.Commit)
            {
                Task.Run(() => _checkpointer!.RetireWriteAheadLogAsync()).GetAwaiter().GetResult();
                writeAheadLog.DisposeAsync().AsTask().GetAwaiter().GetResult();
                WriteAheadLog.DeleteFiles(writeAheadLog.Directory);
                StoreEvents.WriteAheadLogRetired(_logger, writeAheadLog.Directory, durability);
            }
        }
        catch (Exception e)
        {
            writeAheadLog.DisposeAsync().AsTask().GetAwaiter().GetResult();
            ReleaseEngineAndFiles();
            if (_fault.IsFaulted)
            {
                // The disk failed while recovery read or wrote it: nothing was acknowledged yet, the directory is what to fix.
                throw new LogDirectoryUnavailableException(_ownedLayout!.Directory, e is StoreFaultedException ? e : _fault.ToException());
            }

            throw;
        }
    }

    /// <summary>Applies one replayed transaction in order, through the same path as a live batch.</summary>
    private async ValueTask ApplyReplayedAsync(IReadOnlyList<BatchWrite> writes)
    {
        using SessionPool<StoreSession>.Lease lease = await _sessions.RentAsync(CancellationToken.None).ConfigureAwait(false);
        for (int i = 0; i < writes.Count; i++)
        {
            await ApplyInSessionAsync(lease.Session, writes[i]).ConfigureAwait(false);
        }
    }

    /// <summary>A write's pass through the store's <see cref="WriteBarrier"/>.</summary>
    private readonly struct WriteAdmission : IDisposable
    {
        private readonly WriteBarrier _barrier;

        private WriteAdmission(WriteBarrier barrier)
        {
            _barrier = barrier;
        }

        public static async ValueTask<WriteAdmission> EnterAsync(WriteBarrier barrier, CancellationToken cancellationToken)
        {
            await barrier.EnterWriteAsync(cancellationToken).ConfigureAwait(false);
            return new WriteAdmission(barrier);
        }

        public void Dispose() => _barrier.ExitWrite();
    }

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
            try
            {
                await Compactor.DisposeAsync().ConfigureAwait(false);
                await _gate.WhenDrained.ConfigureAwait(false);
                if (_checkpointer is not null)
                {
                    // After the drain, so that the last checkpoint holds every write.
                    await _checkpointer.DisposeAsync().ConfigureAwait(false);
                }

                if (_writeAheadLog is not null && !_writeAheadLog.IsFaulted)
                {
                    // Persists the log's new begin address, which deletes the segments the last checkpoint made unneeded.
                    await _writeAheadLog.CommitAsync().ConfigureAwait(false);
                }
            }
            finally
            {
                if (_writeAheadLog is not null)
                {
                    await _writeAheadLog.DisposeAsync().ConfigureAwait(false);
                }

                // Also when the last checkpoint failed: the files are then released, to be recovered from the previous one.
                ReleaseEngineAndFiles();
            }

            StoreEvents.StoreClosed(_logger, _ownedDevice is null ? "left to the caller" : _deleteLogOnClose ? "deleted" : "kept");
            _disposed.SetResult();
        }
        catch (Exception e)
        {
            _disposed.SetException(e);
        }
    }

    private void ReleaseEngineAndFiles()
    {
        try
        {
            _sessions.Dispose();
            _epochNudger.Dispose();
            if (_ownedDevice is not null)
            {
                // Truncations run inside the FasterKV's epoch: let them finish before it goes.
                _ownedDevice.StopTruncations();
                FasterKV.Dispose();
                _ownedDevice.Dispose();
            }
        }
        finally
        {
            if (_deleteLogOnClose)
            {
                _fileLock?.ReleaseAndDelete();
            }
            else
            {
                _fileLock?.Dispose();
            }
        }
    }

    private LogCompactor StartCompactor(StoreSettings settings, TimeProvider? timeProvider)
    {
        var compactor = new LogCompactor(
            FasterKV,
            CopyLiveRecordsBelow,
            _checkpointer,
            _writes,
            _fault,
            _ownedLayout,
            settings.PageSizeBits,
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

    /// <summary>Copies the live records below <paramref name="untilAddress"/> to the log's tail (FASTER's lookup compaction) and moves the begin address past them.</summary>
    internal void CopyLiveRecordsBelow(long untilAddress)
    {
        using StoreSession session = NewSession();
        session.Compact(untilAddress, CompactionType.Lookup);
    }

    /// <summary>A new FASTER session with this store's callbacks.</summary>
    internal StoreSession NewSession() => FasterKV.For(_functions).NewSession<RecordFunctions>(_functions, sessionVariableLengthStructSettings: SessionLengths);

    /// <summary>
    /// The FASTER store, device, files and file lock a store runs on, and the fault its devices report to; all but the
    /// store and the fault are null when the caller owns the store (whose device failures are then the caller's to see).
    /// </summary>
    private sealed record OwnedLog(
        FasterKV<SpanByte, SpanByte> FasterKV,
        StoreFault Fault,
        TruncationSafeDevice? Device,
        LogFileLayout? Layout,
        StoreFileLock? Lock,
        CheckpointDeviceFactory? CheckpointFiles = null,
        WriteAheadLog? WriteAheadLog = null,
        WalPosition ReplayFrom = default)
    {
        /// <summary>Wraps a caller's FasterKV; rejects durable settings before any session or timer exists.</summary>
        public static OwnedLog Supplied(FasterKV<SpanByte, SpanByte> fasterKV, StoreSettings settings)
        {
            if (settings.IsDurable)
            {
                throw new InvalidStoreOptionsException([$"{nameof(MixedStorageKVStoreOptions)}.{nameof(MixedStorageKVStoreOptions.Durability)} is {settings.Durability}, but a pre-built FasterKV was supplied; its owner takes its checkpoints. Use {nameof(DurabilityMode.None)}, or let the store build its own FasterKV."]);
            }

            return new OwnedLog(fasterKV, new StoreFault(), null, null, null);
        }

        public static OwnedLog Create(StoreSettings settings, RecordFormat format, ILogger logger, TimeProvider timeProvider)
        {
            var layout = new LogFileLayout(settings.LogDirectory, settings.LogFileNamePrefix);
            layout.EnsureWritable();
            StoreFileLock fileLock = StoreFileLock.Acquire(layout.LockFilePath);
            var fault = new StoreFault();
            try
            {
                if (settings.IsDurable)
                {
                    RecoveredLog recovered = StoreRecovery.Open(settings, layout, format, fault, logger, timeProvider);
                    if (fault.IsFaulted)
                    {
                        // A read failed during recovery: FASTER saw zeros where the bytes were, so what it recovered is not the store.
                        recovered.Release();
                        fault.ThrowIfFaulted();
                    }

                    return new OwnedLog(recovered.Store, fault, recovered.Device, layout, fileLock, recovered.CheckpointFiles, recovered.WriteAheadLog, recovered.ReplayFrom);
                }

                if (File.Exists(layout.ManifestPath))
                {
                    // A durable store lives in these files: a scratch store would overwrite its segments and, on close, delete them.
                    throw new StoreManifestMismatchException(
                        layout.ManifestPath, nameof(MixedStorageKVStoreOptions.Durability), $"{DurabilityMode.Checkpoint} or {DurabilityMode.Commit} (a durable store)", nameof(DurabilityMode.None));
                }

                (FasterKV<SpanByte, SpanByte> fasterKV, TruncationSafeDevice device, _) = FasterLogFactory.Create(settings, layout, reopenExistingSegments: false, fault);
                return new OwnedLog(fasterKV, fault, device, layout, fileLock);
            }
            catch (Exception e) when (fault.IsFaulted)
            {
                // The disk failed while the store opened; whatever that made recovery report (a damaged-looking file), the
                // disk is the cause to name, and the files are left for an open once it is fixed.
                fileLock.Dispose();
                throw new LogDirectoryUnavailableException(layout.Directory, e is StoreFaultedException ? e : fault.ToException());
            }
            catch (IOException e)
            {
                // A full or failing disk while files are created or preallocated: the directory is what the user must fix.
                fileLock.Dispose();
                throw new LogDirectoryUnavailableException(layout.Directory, e);
            }
            catch
            {
                fileLock.Dispose();
                throw;
            }
        }
    }
}
