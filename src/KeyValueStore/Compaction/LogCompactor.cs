using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Durability;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Compaction;

/// <summary>
/// Compacts the log and gives the disk space back: when the log reaches the <see cref="CompactionThresholdPolicy"/>'s
/// threshold (checked on a timer, and woken early by a write that finds the log there), and on demand. One pass runs
/// at a time, over the oldest part of the log the policy asks for (all of the read-only region on demand), in slices
/// (<see cref="CompactionPass"/>). A scheduled pass that would compact with the garbage unmeasured first takes a fresh
/// estimate of the live bytes, which may show it is not needed (<see cref="ThresholdRaisedAboveAsync"/>).
/// </summary>
/// <remarks>
/// A pass copies the live records of the old part of the log to the tail and shifts the begin address, but deletes no
/// file. The segment files below the begin address are deleted only by a truncation (FASTER defers the deletion until
/// no thread can still be reading those segments). When that truncation may run is the store's
/// <see cref="IWriteJournal"/>'s to decide (<see cref="IWriteJournal.ReleaseCompactedLogAsync"/>): at once when nothing
/// is recovered, or after a checkpoint has recorded the new begin address together with the copied records.
/// Truncating first would delete records the latest checkpoint still needs.
/// <para>
/// Under a <see cref="LogDiskBudget"/>, a write that finds the log at the budget waits for a step
/// (<see cref="WaitForRoomAsync"/>). Such a step runs a pass even below the threshold (over the whole read-only
/// region then), since deletes may have left garbage the threshold does not yet count. Only when a pass over the whole
/// read-only region leaves the log it started from still full does the budget refuse writes (<see cref="LogDiskBudget"/>).
/// </para>
/// </remarks>
internal sealed partial class LogCompactor : IAsyncDisposable
{
    /// <summary>How many passes one scheduled step runs at most while the log stays over the threshold; a write wakes the next step at once.</summary>
    public const int MaxPassesPerStep = 4;

    private readonly FasterKV<SpanByte, SpanByte> _store;
    private readonly IWriteJournal _journal;
    private readonly StoreFault _fault;
    private readonly long _pageSizeMask;
    private readonly CompactionThresholdPolicy _policy;
    private readonly LogDiskBudget _budget;
    private readonly CompactionPass _pass;
    private readonly EstimateLiveBytes _estimateLiveBytes;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly SemaphoreSlim _oneAtATime = new(1, 1);
    private readonly SemaphoreSlim _wake = new(0, 1);
    private readonly CancellationTokenSource _stopping = new();
    private Task _schedule = Task.CompletedTask;
    private ITimer? _timer;
    private TaskCompletionSource _stepEnded = NewStepSignal();
    private int _wakePending;
    private int _roomWanted;
    private long _tailAfterLastPass = -1;
    private int _disposed;

    /// <param name="store">The FASTER store whose log is compacted: its addresses are read, never its records.</param>
    /// <param name="copyLiveRecords">
    /// The engine's copy of the live records of a range to the log's tail, so the compactor needs nothing of how records
    /// are read and written.
    /// </param>
    /// <param name="estimateLiveBytes">The engine's estimate of the log's live bytes, taken after each pass.</param>
    /// <param name="journal">Moves the begin address between checkpoints, and decides when emptied segment files may go.</param>
    /// <param name="writes">Closed by back-pressure: for short pauses as the log nears its bound, and while it is over it.</param>
    /// <param name="fault">The store's fault: a failed compaction write stops compactions.</param>
    /// <param name="layout">The store's files, to measure what a truncation gives back; null when the caller owns the device.</param>
    /// <param name="pageSizeBits">The log's page size.</param>
    /// <param name="segmentSizeBits">The log's segment size.</param>
    /// <param name="policy">When a pass runs, and when it holds writers back.</param>
    /// <param name="budget">The most the log may hold (the policy was built with the same); <see cref="LogDiskBudget.None"/> for no budget.</param>
    /// <param name="timeProvider">Drives the timer.</param>
    /// <param name="logger">Receives compaction events.</param>
    public LogCompactor(
        FasterKV<SpanByte, SpanByte> store,
        CopyLiveRecords copyLiveRecords,
        EstimateLiveBytes estimateLiveBytes,
        IWriteJournal journal,
        WriteBarrier writes,
        StoreFault fault,
        LogFileLayout? layout,
        int pageSizeBits,
        int segmentSizeBits,
        CompactionThresholdPolicy policy,
        LogDiskBudget budget,
        TimeProvider timeProvider,
        ILogger logger)
    {
        _store = store;
        _budget = budget;
        _estimateLiveBytes = estimateLiveBytes;
        _journal = journal;
        _fault = fault;
        _pageSizeMask = (1L << pageSizeBits) - 1;
        _policy = policy;
        _timeProvider = timeProvider;
        _logger = logger;
        _pass = new CompactionPass(store, copyLiveRecords, journal, writes, policy, Statistics, layout, pageSizeBits, segmentSizeBits, timeProvider);
    }

    /// <summary>Gets the log size from which a scheduled step compacts.</summary>
    public long ThresholdBytes => _policy.ThresholdBytes;

    /// <summary>Gets the live bytes the threshold follows, as the last passes estimated them (<see cref="SteadiedLiveEstimate"/>), or null before the first.</summary>
    public long? LiveBytesEstimate => _policy.LiveBytesEstimate;

    /// <summary>Gets the threshold and the live estimate it was set from, read together.</summary>
    public CompactionThresholdPolicy.ThresholdAndEstimate ThresholdAndEstimate => _policy.Current;

    /// <summary>Gets the log's size now: from its begin address to its tail, what its segment files hold.</summary>
    public long LogBytes => _store.Log.TailAddress - _store.Log.BeginAddress;

    /// <summary>Gets what compaction has done and what it cost the writers.</summary>
    public CompactionStatistics Statistics { get; } = new();

    /// <summary>Gets the passes under way and started, for an observer to tell which operations overlapped one.</summary>
    public BackgroundWork Passes { get; } = new();

    /// <summary>Starts compacting every <paramref name="interval"/> of the injected clock, and whenever <see cref="NoteWrite"/> finds the log over the threshold.</summary>
    public void Start(TimeSpan interval)
    {
        _schedule = RunScheduleAsync(_stopping.Token);
        _timer = _timeProvider.CreateTimer(static state => ((LogCompactor)state!).Wake(), this, interval, interval);
    }

    /// <summary>
    /// Called after each write: wakes the scheduled compactor early when the log has reached the threshold, so that
    /// writers faster than the timer cannot run far past it. Two reads of the log's addresses when it has not.
    /// </summary>
    public void NoteWrite()
    {
        if (_timer is not null && _store.Log.TailAddress - _store.Log.BeginAddress >= _policy.ThresholdBytes)
        {
            Wake();
        }
    }

    /// <summary>
    /// Runs one scheduled step now: measure the log, then skip, or compact the oldest part of it in passes until it is
    /// below the threshold again (at most <see cref="MaxPassesPerStep"/>), as the policy says. A write waiting for room
    /// under the budget makes the step run its first pass even below the threshold, unless nothing was written since
    /// the last pass; below the threshold the policy's pass covers the whole read-only region. The timer calls this;
    /// tests call it to drive the policy without waiting.
    /// </summary>
    public async Task RunScheduledStepAsync(CancellationToken cancellationToken = default)
    {
        await EnterAsync(cancellationToken).ConfigureAwait(false);
        bool roomAskedFor = Interlocked.Exchange(ref _roomWanted, 0) != 0;
        bool compacted = false;
        try
        {
            bool passForRoom = roomAskedFor && _store.Log.TailAddress != Volatile.Read(ref _tailAfterLastPass);
            for (int pass = 0; pass < MaxPassesPerStep; pass++)
            {
                long logBytes = LogBytes;
                bool forRoom = passForRoom && pass == 0;
                if (!forRoom && (!_policy.ShouldCompact(logBytes) || await ThresholdRaisedAboveAsync(logBytes, cancellationToken).ConfigureAwait(false)))
                {
                    if (pass == 0)
                    {
                        StoreEvents.CompactionSkipped(_logger, logBytes, _policy.ThresholdBytes);
                    }

                    break;
                }

                long begin = _store.Log.BeginAddress;
                long readOnly = _store.Log.SafeReadOnlyAddress;

                // At least to the next page boundary, or rounding down to one could leave nothing to compact.
                long until = Math.Max(begin + _policy.PassBytes(logBytes, readOnly - begin), (begin | _pageSizeMask) + 1);
                // A pass a writer waits on for room copies at full speed; a pass of the threshold as the log warrants.
                CompactionResult result = await CompactUntilAsync(Math.Min(until, readOnly), allCopyWorkers: passForRoom, cancellationToken).ConfigureAwait(false);
                if (!result.Compacted)
                {
                    break;
                }

                compacted = true;
            }
        }
        finally
        {
            if (roomAskedFor && !compacted)
            {
                _budget.RecordStepWithoutPass();
            }

            _oneAtATime.Release();
        }
    }

    /// <summary>Compacts the safe-read-only region now (up to its last page boundary), whatever the threshold, and truncates the files below it.</summary>
    public async Task<CompactionResult> CompactNowAsync(CancellationToken cancellationToken = default)
    {
        await EnterAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            return await CompactUntilAsync(_store.Log.SafeReadOnlyAddress, allCopyWorkers: true, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _oneAtATime.Release();
        }
    }

    /// <summary>Stops the timer and waits for a compaction in progress to finish. Idempotent.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        if (_timer is not null)
        {
            await _timer.DisposeAsync().ConfigureAwait(false);
        }

        await _stopping.CancelAsync().ConfigureAwait(false);
        try
        {
            await _schedule.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
        }

        // Writers waiting for room see the disposal.
        Volatile.Read(ref _stepEnded).TrySetResult();

        // An on-demand compaction may still hold the lock: waiting for the lock waits for it. Callers that
        // get the lock after this see _disposed and throw instead of touching a store about to be released.
        await _oneAtATime.WaitAsync().ConfigureAwait(false);
        _oneAtATime.Release();
        _stopping.Dispose();
    }

    /// <summary>Asks the schedule for a step; a request while one is pending is the same request.</summary>
    private void Wake()
    {
        // Read first: while a pass runs every write finds the log over the threshold, and an exchange each would make all
        // writers contend for this one field.
        if (Volatile.Read(ref _wakePending) == 0 && Interlocked.Exchange(ref _wakePending, 1) == 0)
        {
            _wake.Release();
        }
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

    private static TaskCompletionSource NewStepSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    private async Task RunScheduleAsync(CancellationToken stopping)
    {
        while (true)
        {
            await _wake.WaitAsync(stopping).ConfigureAwait(false);
            Volatile.Write(ref _wakePending, 0);
            try
            {
                // After a disk failure a compaction cannot write its copies; the store waits to be reopened.
                if (!_fault.IsFaulted)
                {
                    await RunScheduledStepAsync(stopping).ConfigureAwait(false);
                }
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
            finally
            {
                // Writers waiting for room look at the log again, whatever the step did.
                Interlocked.Exchange(ref _stepEnded, NewStepSignal()).TrySetResult();
            }
        }
    }

    /// <summary>
    /// Before a scheduled pass that would compact with the log's garbage unmeasured (<see cref="CompactionThresholdPolicy.GarbageUnmeasured"/>):
    /// estimates the live bytes now and lets the policy raise its threshold; returns whether that put it above a log of
    /// <paramref name="logBytes"/>, so that no pass is needed.
    /// </summary>
    /// <remarks>
    /// Such a pass would copy the whole read-only region, and with data that is all live (a load of new keys, a store
    /// just reopened) it copies every record to give nothing back. An estimate samples about a thousand records. A pass
    /// a writer waits on for room under a budget does not wait for one: it must find out what a whole pass gives back.
    /// </remarks>
    private async Task<bool> ThresholdRaisedAboveAsync(long logBytes, CancellationToken cancellationToken)
    {
        if (!_policy.GarbageUnmeasured)
        {
            return false;
        }

        long liveBytes;
        try
        {
            liveBytes = await _estimateLiveBytes(cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (KeyValueStoreException.IsForeign(e))
        {
            throw Failure(e);
        }

        long oldThreshold = _policy.ThresholdBytes;
        if (_policy.RecordEstimate(liveBytes) is long threshold && _policy.LiveBytesEstimate is long followed)
        {
            StoreEvents.CompactionThresholdChanged(_logger, oldThreshold, threshold, followed);
        }

        return !_policy.ShouldCompact(logBytes);
    }

    /// <summary>
    /// What a compaction that failed on something the engine threw (FASTER's own exceptions, an unexpected read result)
    /// reaches its caller as: after a disk failure the store's fault says what happened; otherwise the compaction failed,
    /// and as a pass moves the begin address only past the slices it finished, nothing is lost.
    /// </summary>
    private KeyValueStoreException Failure(Exception e) => _fault.IsFaulted ? _fault.ToException() : new CompactionFailedException(e);

    /// <summary>Runs one pass up to <paramref name="requestedUntilAddress"/> through the journal, and lets the policy learn from it.</summary>
    private async Task<CompactionResult> CompactUntilAsync(long requestedUntilAddress, bool allCopyWorkers, CancellationToken cancellationToken)
    {
        // The begin address must fall between records, and only a page boundary is sure to (records never cross one).
        // FASTER 2.6.5's own compaction, used before, also misread a record crossing its until address.
        long untilAddress = requestedUntilAddress & ~_pageSizeMask;

        // Only this compactor moves the begin address, one compaction at a time, so this check cannot go stale;
        // it spares a durable store a checkpoint for a compaction that would do nothing.
        if (untilAddress <= _store.Log.BeginAddress)
        {
            return new CompactionResult(false, 0, 0, 0);
        }

        _fault.ThrowIfFaulted();
        try
        {
            return await PassUntilAsync(untilAddress, allCopyWorkers, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (KeyValueStoreException.IsForeign(e))
        {
            throw Failure(e);
        }
    }

    private async Task<CompactionResult> PassUntilAsync(long untilAddress, bool allCopyWorkers, CancellationToken cancellationToken)
    {
        using BackgroundWork.Running running = Passes.Begin();
        long started = _timeProvider.GetTimestamp();
        bool wholeReadOnlyRegion = untilAddress >= (_store.Log.SafeReadOnlyAddress & ~_pageSizeMask);
        TimeSpan backPressureBefore = Statistics.BackPressure;
        CompactionResult result = await _pass.RunAsync(untilAddress, cancellationToken, allCopyWorkers).ConfigureAwait(false);
        Volatile.Write(ref _tailAfterLastPass, _store.Log.TailAddress);
        bool wasExhausted = _budget.IsExhausted;
        _budget.RecordPassLeft(result.CopiedBytes + result.UncompactedBytes, wholeReadOnlyRegion);
        if (!wasExhausted && _budget.IsExhausted)
        {
            StoreEvents.LogDiskBudgetFilled(_logger, result.CopiedBytes + result.UncompactedBytes, _budget.Bytes);
        }

        await _pass.ReleaseWatchedAsync(cancellationToken).ConfigureAwait(false);
        StoreEvents.Compacted(_logger, result.LogBytesBefore, result.LogBytesAfter, result.DiskBytesFreed, _timeProvider.GetElapsedTime(started));
        if (Statistics.BackPressure - backPressureBefore is { Ticks: > 0 } heldBack)
        {
            StoreEvents.CompactionBackPressure(_logger, heldBack, result.LogBytesBefore, _policy.ThresholdBytes);
        }

        long liveBytes = await _pass.WatchingBackPressureAsync(() => _estimateLiveBytes(cancellationToken)).ConfigureAwait(false);
        long oldThreshold = _policy.ThresholdBytes;
        // The event names the estimate the threshold now follows (steadied over the last passes), not this pass's sample.
        if (_policy.RecordPass(liveBytes, result.CopiedBytes + result.UncompactedBytes, result.CopiedBytes, result.CompactedBytes) is long threshold
            && _policy.LiveBytesEstimate is long followed)
        {
            StoreEvents.CompactionThresholdChanged(_logger, oldThreshold, threshold, followed);
        }

        return result;
    }
}
