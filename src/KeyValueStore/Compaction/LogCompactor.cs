using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Diagnostics;
using KeyValueStore.Durability;
using KeyValueStore.Concurrency;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Compaction;

/// <summary>
/// Compacts the log and gives the disk space back: on a timer, following <see cref="CompactionThresholdPolicy"/>,
/// and on demand. One compaction runs at a time, over the whole read-only region, in slices with the writers let in
/// between them.
/// </summary>
/// <remarks>
/// In FASTER 2.x, <c>Compact</c> copies live records from the old part of the log to the tail and shifts
/// the begin address, but deletes no file. The segment files below the begin address are deleted only
/// by a truncation (<see cref="LogAccessor{Key, Value}.Truncate"/>: FASTER defers the deletion until no thread can
/// still be reading those segments). When that truncation may run is the store's <see cref="IWriteJournal"/>'s to
/// decide (<see cref="IWriteJournal.RunCompactionAsync{T}"/>): at once when nothing is recovered, or after a checkpoint
/// has recorded the new begin address together with the copied records. Truncating first would delete records the
/// latest checkpoint still needs.
/// Lookup compaction is used rather than Scan: Scan builds a temporary in-memory index of the whole
/// compacted range, which would break the store's memory bound.
/// </remarks>
internal sealed class LogCompactor : IAsyncDisposable
{
    private readonly FasterKV<SpanByte, SpanByte> _store;
    private readonly Action<long> _copyLiveRecordsBelow;
    private readonly IWriteJournal _journal;
    private readonly WriteBarrier _writes;
    private readonly StoreFault _fault;
    private readonly LogFileLayout? _layout;
    private readonly int _segmentSizeBits;
    private readonly long _pageSizeMask;
    private readonly long _sliceBytes;
    private readonly CompactionThresholdPolicy _policy;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly SemaphoreSlim _oneAtATime = new(1, 1);
    private readonly CancellationTokenSource _stopping = new();
    private Task _schedule = Task.CompletedTask;
    private int _disposed;

    /// <param name="store">The FASTER store whose log is compacted: its addresses are read, never its records.</param>
    /// <param name="copyLiveRecordsBelow">
    /// The engine's copy of the live records below an address to the log's tail (FASTER's lookup compaction in a session
    /// of the engine's), so the compactor needs nothing of how records are read and written.
    /// </param>
    /// <param name="journal">Runs each compaction and decides when its emptied segment files may go.</param>
    /// <param name="writes">Held closed while records are copied.</param>
    /// <param name="fault">The store's fault: a failed compaction write stops compactions.</param>
    /// <param name="layout">The store's files, to measure what a truncation gives back; null when the caller owns the device.</param>
    /// <param name="pageSizeBits">The log's page size.</param>
    /// <param name="segmentSizeBits">The log's segment size.</param>
    /// <param name="policy">When the timer compacts.</param>
    /// <param name="timeProvider">Drives the timer.</param>
    /// <param name="logger">Receives compaction events.</param>
    public LogCompactor(
        FasterKV<SpanByte, SpanByte> store,
        Action<long> copyLiveRecordsBelow,
        IWriteJournal journal,
        WriteBarrier writes,
        StoreFault fault,
        LogFileLayout? layout,
        int pageSizeBits,
        int segmentSizeBits,
        CompactionThresholdPolicy policy,
        TimeProvider timeProvider,
        ILogger logger)
    {
        _store = store;
        _copyLiveRecordsBelow = copyLiveRecordsBelow;
        _journal = journal;
        _writes = writes;
        _fault = fault;
        _layout = layout;
        _segmentSizeBits = segmentSizeBits;
        _pageSizeMask = (1L << pageSizeBits) - 1;
        _sliceBytes = Math.Max(1L << pageSizeBits, MinSliceBytes & ~_pageSizeMask);
        _policy = policy;
        _timeProvider = timeProvider;
        _logger = logger;
    }

    /// <summary>The least a slice copies, rounded down to whole pages (and at least one): small enough that a writer held for it waits milliseconds, large enough that the barrier's drain is paid rarely.</summary>
    public const long MinSliceBytes = 4L << 20;

    /// <summary>How many passes one scheduled step runs at most while the log stays over the threshold: writers that outrun one pass are caught up with before the next tick.</summary>
    public const int MaxPassesPerStep = 4;

    /// <summary>Gets the log size from which a scheduled step compacts.</summary>
    public long ThresholdBytes => _policy.ThresholdBytes;

    /// <summary>Gets the live bytes the last pass estimated, or null before the first.</summary>
    public long? LiveBytesEstimate => _policy.LiveBytesEstimate;

    /// <summary>Starts compacting every <paramref name="interval"/> of the injected clock.</summary>
    public void Start(TimeSpan interval) => _schedule = RunScheduleAsync(interval, _stopping.Token);

    /// <summary>
    /// Runs one scheduled step now: measure the log, then skip, or compact its whole read-only region in passes until
    /// it is below the threshold again (at most <see cref="MaxPassesPerStep"/>), as the policy says. The timer calls
    /// this; tests call it to drive the policy without waiting.
    /// </summary>
    public async Task RunScheduledStepAsync(CancellationToken cancellationToken = default)
    {
        await EnterAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            for (int pass = 0; pass < MaxPassesPerStep; pass++)
            {
                long logBytes = _store.Log.TailAddress - _store.Log.BeginAddress;
                if (!_policy.ShouldCompact(logBytes))
                {
                    if (pass == 0)
                    {
                        StoreEvents.CompactionSkipped(_logger, logBytes, _policy.ThresholdBytes);
                    }

                    return;
                }

                CompactionResult result = await CompactUntilAsync(_store.Log.SafeReadOnlyAddress, cancellationToken).ConfigureAwait(false);
                if (!result.Compacted)
                {
                    return;
                }

                RecordPass(result);
            }
        }
        finally
        {
            _oneAtATime.Release();
        }
    }

    /// <summary>Compacts the safe-read-only region now (up to its last page boundary), whatever the threshold, and truncates the files below it.</summary>
    public async Task<CompactionResult> CompactNowAsync(CancellationToken cancellationToken = default)
    {
        await EnterAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            CompactionResult result = await CompactUntilAsync(_store.Log.SafeReadOnlyAddress, cancellationToken).ConfigureAwait(false);
            if (result.Compacted)
            {
                RecordPass(result);
            }

            return result;
        }
        finally
        {
            _oneAtATime.Release();
        }
    }

    /// <summary>Lets the policy measure the live data by a pass over the whole read-only region.</summary>
    private void RecordPass(CompactionResult result)
    {
        long oldThreshold = _policy.ThresholdBytes;
        if (_policy.RecordPass(result.CopiedBytes, result.UncompactedBytes) is long threshold)
        {
            StoreEvents.CompactionThresholdChanged(_logger, oldThreshold, threshold, _policy.LiveBytesEstimate!.Value);
        }
    }

    /// <summary>Stops the timer and waits for a compaction in progress to finish. Idempotent.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _stopping.CancelAsync().ConfigureAwait(false);
        try
        {
            await _schedule.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
        }

        // An on-demand compaction may still hold the lock: waiting for the lock waits for it. Callers that
        // get the lock after this see _disposed and throw instead of touching a store about to be released.
        await _oneAtATime.WaitAsync().ConfigureAwait(false);
        _oneAtATime.Release();
        _stopping.Dispose();
    }

    private async Task EnterAsync(CancellationToken cancellationToken)
    {
        await _oneAtATime.WaitAsync(cancellationToken).ConfigureAwait(false);
        if (Volatile.Read(ref _disposed) != 0)
        {
            _oneAtATime.Release();
            throw new ObjectDisposedException(nameof(LogCompactor), "The store has been disposed; create a new store to continue.");
        }
    }

    private async Task RunScheduleAsync(TimeSpan interval, CancellationToken stopping)
    {
        using var timer = new PeriodicTimer(interval, _timeProvider);
        while (await timer.WaitForNextTickAsync(stopping).ConfigureAwait(false))
        {
            // After a disk failure a compaction cannot write its copies; the store waits to be reopened.
            if (_fault.IsFaulted)
            {
                continue;
            }

            try
            {
                await RunScheduledStepAsync(stopping).ConfigureAwait(false);
            }
            catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException && Volatile.Read(ref _disposed) != 0)
            {
                return;
            }
            catch (Exception e)
            {
                // A failed compaction loses nothing: the records it did not move are still where they were.
                StoreEvents.CompactionFailed(_logger, e);
            }
        }
    }

    private async Task<CompactionResult> CompactUntilAsync(long requestedUntilAddress, CancellationToken cancellationToken)
    {
        // FASTER 2.6.5's Lookup compaction reads the last on-disk page of its range only up to the until address
        // (rounded up to a sector). A record crossing that address is copied to the tail with its end zeroed, and its
        // size is misread, which can put the new begin address inside it (and recovery then crashes on the misaligned
        // scan). Records never cross a page boundary, so compacting to one is always safe.
        long untilAddress = requestedUntilAddress & ~_pageSizeMask;

        // Only this compactor moves the begin address, one compaction at a time, so this check cannot go stale;
        // it spares a durable store a checkpoint for a compaction that would do nothing.
        if (untilAddress <= _store.Log.BeginAddress)
        {
            return new CompactionResult(false, 0, 0, 0);
        }

        _fault.ThrowIfFaulted();
        long started = _timeProvider.GetTimestamp();
        CompactionResult result = await _journal.RunCompactionAsync(() => CompactInSlicesAsync(untilAddress), cancellationToken).ConfigureAwait(false);
        StoreEvents.Compacted(_logger, result.LogBytesBefore, result.LogBytesAfter, result.DiskBytesFreed, _timeProvider.GetElapsedTime(started));

        return result;
    }

    /// <summary>
    /// Compacts up to <paramref name="untilAddress"/> one slice at a time (<see cref="_sliceBytes"/>, whole pages), letting
    /// the writers in between slices: a writer waits for one slice's copy at most, not for the whole pass.
    /// </summary>
    private async Task<CompactionResult> CompactInSlicesAsync(long untilAddress)
    {
        long logBytesBefore = _store.Log.TailAddress - _store.Log.BeginAddress;
        long copied = 0;
        long uncompacted = 0;
        for (long sliceEnd = _store.Log.BeginAddress; sliceEnd < untilAddress;)
        {
            // Every slice ends on a page boundary, as the pass does (CompactUntilAsync says why).
            sliceEnd = Math.Min(untilAddress, (sliceEnd + _sliceBytes) & ~_pageSizeMask);
            (long sliceCopied, long sliceUncompacted) = await CompactSliceWithoutWritersAsync(sliceEnd).ConfigureAwait(false);

            // Past the slice lie the earlier slices' copies, already counted as copied.
            uncompacted = sliceUncompacted - copied;
            copied += sliceCopied;
        }

        long begin = _store.Log.BeginAddress;
        return new CompactionResult(true, logBytesBefore, _store.Log.TailAddress - begin, DiskBytesBelow(begin), copied, uncompacted);
    }

    /// <summary>
    /// Compacts one slice with writes held back: FASTER's compaction links each copy with a hash entry it read before
    /// latching the bucket, so a write to that key in between would leave an unlinked record that every later scan
    /// misreads (see <see cref="WriteBarrier"/>). Reads go on. Returns the bytes the slice copied (with writers held,
    /// only the copies reach the tail) and the bytes of the log after the slice before its copies, which it did not reach.
    /// </summary>
    private async Task<(long Copied, long Uncompacted)> CompactSliceWithoutWritersAsync(long sliceEnd)
    {
        await _writes.CloseAsync().ConfigureAwait(false);
        try
        {
            // FASTER's compaction is synchronous: when the disk fails, its thread waits forever for a page flush that
            // will never come. The compactor stops waiting for it, and the write barrier opens (writes are refused by
            // then). The thread and its session stay parked until the process ends.
            return await Task.Run(() =>
            {
                long tailBefore = _store.Log.TailAddress;
                _copyLiveRecordsBelow(sliceEnd);
                return (_store.Log.TailAddress - tailBefore, tailBefore - sliceEnd);
            }).WaitAsync(_fault.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (_fault.IsFaulted)
        {
            throw _fault.ToException();
        }
        finally
        {
            _writes.Open();
        }
    }

    /// <summary>Sums the segment files wholly below <paramref name="beginAddress"/>: those a truncation to it deletes.</summary>
    private long DiskBytesBelow(long beginAddress)
    {
        long firstLiveSegment = beginAddress >> _segmentSizeBits;
        return _layout?.Segments().Where(segment => segment.Number < firstLiveSegment).Sum(segment => segment.Length) ?? 0;
    }
}
