using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Durability;
using KeyValueStore.Storage;

namespace KeyValueStore.Compaction;

/// <summary>
/// One compaction pass: copies the live records below an address to the log's tail and moves the begin address past
/// them, one slice of whole pages at a time, while writers run. The log is looked at before each slice, and every few
/// milliseconds while one copies or the pass releases segments: from where compaction hurries, writers are held for a
/// share of the time that grows with the log's way to the policy's back-pressure bound
/// (<see cref="CompactionThresholdPolicy.WriterHoldShare"/>), and once the log is over the bound they are held out until
/// a slice brings it back under: they are slowed as far as compaction is behind, and the disk stays bounded. Only while
/// compaction gives room back, though (<see cref="_givingRoomBack"/>). A slice with time to spare
/// is followed by a rest that leaves the disk to the foreground (<see cref="CompactionThresholdPolicy.RestAfterSlice"/>);
/// one the log's growth hurries, or a compaction asked for now, goes straight on. Deletes no file itself:
/// the journal decides when the emptied segment files go, and a long pass asks it on the way (each time it has emptied
/// an eighth of the threshold in whole segments, a sixteenth near the bound, or each segment where the journal asks for
/// that: <see cref="ReleaseEveryBytes"/>), not only at its end.
/// </summary>
/// <remarks>
/// The copies are the engine's (<see cref="CopyLiveRecords"/>), which keeps them from the writes of their keys, and
/// copies the faster way when back-pressure holds the writers anyway. Each slice's begin address moves only once its
/// copies are in the log, and each slice runs between checkpoints
/// (<see cref="IWriteJournal.RunBetweenCheckpointsAsync{T}"/>): a checkpoint waits for at most one slice. The bytes a
/// slice copies are its live data: the policy sizes the next pass by the live share of this one
/// (<see cref="CompactionThresholdPolicy.PassBytes"/>).
/// </remarks>
internal sealed class CompactionPass
{
    /// <summary>
    /// The least a slice covers, rounded down to whole pages (and at least one): the begin address moves once per slice.
    /// Under a small budget, an eighth of the budget instead (<see cref="BudgetPerSlice"/>).
    /// </summary>
    public const long MinSliceBytes = 4L << 20;

    /// <summary>
    /// How many slices a log disk budget holds at least: a slice's copies reach the tail before its begin address moves,
    /// so the log can pass the budget by one slice's live records.
    /// </summary>
    public const long BudgetPerSlice = 8;

    /// <summary>How often, while a slice copies beside the writers, the log's size is checked against the back-pressure bound.</summary>
    public static readonly TimeSpan BackPressureWatchInterval = TimeSpan.FromMilliseconds(10);

    /// <summary>The shortest pause that slows the writers (<see cref="PauseTheWritersAsync"/>): a shorter one is not worth a close of the barrier.</summary>
    private static readonly TimeSpan MinWriterPause = TimeSpan.FromMilliseconds(1);

    private readonly FasterKV<SpanByte, SpanByte> _store;
    /// <summary>The most records a slice copies at once (the engine's <c>LiveRecordCopier.Workers</c>).</summary>
    public const int MaxCopyWorkers = 8;

    private readonly CopyLiveRecords _copyLiveRecords;
    private readonly IWriteJournal _journal;
    private readonly WriteBarrier _writes;
    private readonly CompactionThresholdPolicy _policy;
    private readonly CompactionStatistics _statistics;
    private readonly LogFileLayout? _layout;
    private readonly int _segmentSizeBits;
    private readonly long _pageSizeMask;
    private readonly long _sliceBytes;
    private readonly TimeProvider _timeProvider;

    /// <summary>
    /// Whether the work under way gives room back, so that holding writers can bring the log under the bound: the last
    /// slice copied less than <see cref="CompactionThresholdPolicy.AlmostAllLive"/> of its bytes (at a pass's start, the
    /// policy's expectation, <see cref="CompactionThresholdPolicy.PassExpectedToGiveRoomBack"/>; after a pass, the whole
    /// pass did). Writers are held or slowed only then.
    /// </summary>
    /// <remarks>
    /// A part that is almost all live moves to the tail whole, and the log stays as long: writers held over the bound
    /// beside it waited for the rest of the pass and the live estimate after it, until the new threshold let them go.
    /// A bulk load of new keys (the load test's load phase, 100,000 records of 1 KB, 16 MB in memory) was held that way
    /// for 350-640 ms of its 0.8-1.0 s, up to 170 ms at a time; held for its first slice only, while nothing was known
    /// yet, still 60-90 ms (the 2-core VM of docs/benchmarks.md). Unheld, writers can pass the bound by what they write
    /// during one slice that gives room back. Under a disk budget the writes still wait for room
    /// (<see cref="LogCompactor.WaitForRoomAsync"/>): the budget is a promise, this bound a target.
    /// </remarks>
    private bool _givingRoomBack;

    public CompactionPass(
        FasterKV<SpanByte, SpanByte> store,
        CopyLiveRecords copyLiveRecords,
        IWriteJournal journal,
        WriteBarrier writes,
        CompactionThresholdPolicy policy,
        CompactionStatistics statistics,
        LogFileLayout? layout,
        int pageSizeBits,
        int segmentSizeBits,
        TimeProvider timeProvider)
    {
        _store = store;
        _copyLiveRecords = copyLiveRecords;
        _journal = journal;
        _writes = writes;
        _policy = policy;
        _statistics = statistics;
        _layout = layout;
        _segmentSizeBits = segmentSizeBits;
        _pageSizeMask = (1L << pageSizeBits) - 1;
        _sliceBytes = Math.Max(1L << pageSizeBits, Math.Min(MinSliceBytes, policy.BudgetBytes / BudgetPerSlice) & ~_pageSizeMask);
        _timeProvider = timeProvider;
    }

    /// <summary>
    /// How many bytes of whole segment files a pass empties before it gives them back on the way: an eighth of the
    /// threshold (about a quarter of the live data waiting at most), at least one segment; a sixteenth of it while the log
    /// is near its bound (the slice that emptied it held the writers, or left the log where writers are slowed), since the
    /// disk is then near its bound too; and every segment throughout where the journal says a release is cheap
    /// (<see cref="IWriteJournal.ReleasesEachEmptiedSegment"/>). Counted in whole segments, since a release (a checkpoint,
    /// in the durable modes) frees nothing of a segment the begin address is still inside.
    /// </summary>
    /// <remarks>
    /// Released every eighth of the threshold throughout, the segments waiting for a checkpoint took Checkpoint mode's
    /// files to 3.06 times the live data at the 95th percentile over ten minutes of the load test; released each one
    /// while writers are held, 2.93, for 16-20% more back-pressure, as the pass waits for the extra checkpoints
    /// (docs/benchmarks.md, "Emptied segments released at once at the bound"); released at once from where writers are
    /// slowed too, the worst second of a ten-minute run was 2.92 times ("Writers slowed in proportion"). Those runs had
    /// 16 MB segments, a sixteenth of their threshold or more. With 4 MB segments each one's checkpoint cost a fifth of
    /// the throughput; released each sixteenth of the threshold near the bound, they ran 7-16% faster, with the files'
    /// worst second up to a tenth of the live data higher ("Emptied segments released a sixteenth of the threshold at a
    /// time near the bound").
    /// The disk bound is the promise; back-pressure is how it is kept.
    /// </remarks>
    private long ReleaseEveryBytes(bool nearTheBound) =>
        _journal.ReleasesEachEmptiedSegment ? 1L << _segmentSizeBits
        : Math.Max(1L << _segmentSizeBits, _policy.ThresholdBytes / (nearTheBound ? ReleaseNearTheBoundPerThreshold : ReleasePerThreshold));

    /// <summary>How many releases of emptied segments a pass makes per threshold's worth of log it compacts, at most, away from the bound.</summary>
    private const long ReleasePerThreshold = 8;

    /// <summary>How many releases of emptied segments a pass makes per threshold's worth of log it compacts, at most, near the bound.</summary>
    private const long ReleaseNearTheBoundPerThreshold = 16;

    /// <summary>The bytes of the whole segments below <paramref name="to"/> that are not below <paramref name="from"/>.</summary>
    private long WholeSegmentBytesBetween(long from, long to) => ((to >> _segmentSizeBits) - (from >> _segmentSizeBits)) << _segmentSizeBits;

    /// <summary>Compacts up to <paramref name="untilAddress"/>, a page boundary above the begin address.</summary>
    /// <param name="untilAddress">Where the pass ends.</param>
    /// <param name="cancellationToken">
    /// Stops the pass before its next slice: the slices done stay done (their copies are in the log and the begin address
    /// is past them), and a slice under way runs to its end.
    /// </param>
    /// <exception cref="StoreFaultedException">The disk failed while a slice copied.</exception>
    /// <param name="allCopyWorkers">Whether every slice copies with all its workers (a compaction asked for now), rather than as the log's size warrants.</param>
    public async Task<CompactionResult> RunAsync(long untilAddress, CancellationToken cancellationToken, bool allCopyWorkers = false)
    {
        long beginBefore = _store.Log.BeginAddress;
        long tailAtStart = _store.Log.TailAddress;
        long copied = 0;
        long diskBytesFreed = 0;
        long releasedUntil = beginBefore;
        var backPressure = new BackPressureHold(this);
        _givingRoomBack = _policy.PassExpectedToGiveRoomBack(LogBytes);
        try
        {
            for (long sliceStart = beginBefore; sliceStart < untilAddress;)
            {
                cancellationToken.ThrowIfCancellationRequested();

                // Every slice ends on a page boundary, as the pass does (LogCompactor says why).
                long sliceEnd = Math.Min(untilAddress, (sliceStart + _sliceBytes) & ~_pageSizeMask);

                // Writers not held at the slice's start may outrun a slow copy; the watch hurries the slice once the log
                // grows to where compaction hurries, and holds the writers once it passes the bound, without waiting for
                // the slice to end.
                // As many copiers as the log's distance to the back-pressure bound asks for (CopyWorkersFor says why).
                int copyWorkers = allCopyWorkers ? MaxCopyWorkers : _policy.CopyWorkersFor(LogBytes, MaxCopyWorkers);
                SlicePace pace = copyWorkers < MaxCopyWorkers ? SlicePace.WithTimeToSpare(copyWorkers) : SlicePace.Hurried();
                long sliceStarted = _timeProvider.GetTimestamp();
                long tailBefore = _store.Log.TailAddress;
                SliceDone slice = await RunWatchedAsync(
                    backPressure,
                    writersHeld => _journal.RunBetweenCheckpointsAsync(() => CopyThenShiftAsync(sliceStart, sliceEnd, untilAddress, writersHeld, pace)),
                    pace).ConfigureAwait(false);

                copied += slice.CopiedBytes;
                diskBytesFreed += slice.DiskBytesFreed;
                _givingRoomBack = GivesRoomBack(slice.CopiedBytes, sliceEnd - sliceStart);
                sliceStart = sliceEnd;

                bool sliceHeldWriters = backPressure.IsHeld;

                // Writers a slice held go as soon as it has brought the log under the bound (or found its part almost
                // all live), not at the next slice's start: a checkpoint in between (below) held them for its whole
                // flush, the longest pauses beside checkpoints (docs/benchmarks.md, "Writers released before a pass's
                // checkpoints").
                if (!ShouldHoldWriters())
                {
                    backPressure.Release();
                }

                // A long pass gives its emptied segment files back on the way, not only at its end (where the caller
                // does): a durable journal checkpoints for that, so not after every slice unless the disk is near its bound.
                bool nearTheBound = sliceHeldWriters || _policy.WriterHoldShare(LogBytes) > 0;
                if (sliceEnd < untilAddress && WholeSegmentBytesBetween(releasedUntil, sliceEnd) >= ReleaseEveryBytes(nearTheBound))
                {
                    await RunWatchedAsync(backPressure, _ => ReleaseAsync(cancellationToken)).ConfigureAwait(false);
                    releasedUntil = sliceEnd;
                }

                // A slice with time to spare is followed by a rest that leaves the disk to the foreground; not one a
                // compaction asked for now, nor one that held writers.
                if (!allCopyWorkers && !sliceHeldWriters && sliceEnd < untilAddress)
                {
                    await RestAsync(_timeProvider.GetElapsedTime(sliceStarted), _store.Log.TailAddress - tailBefore, cancellationToken).ConfigureAwait(false);
                }
            }
        }
        finally
        {
            backPressure.Release();
        }

        // What follows the pass (its release of segments, the live estimate) holds writers only if the pass gave room back.
        _givingRoomBack = GivesRoomBack(copied, untilAddress - beginBefore);
        long beginAfter = _store.Log.BeginAddress;
        var result = new CompactionResult(
            Compacted: true,
            LogBytesBefore: tailAtStart - beginBefore,
            LogBytesAfter: _store.Log.TailAddress - beginAfter,
            DiskBytesFreed: diskBytesFreed,
            CopiedBytes: copied,
            UncompactedBytes: Math.Max(0, tailAtStart - untilAddress),
            CompactedBytes: untilAddress - beginBefore);
        _statistics.RecordPass(Math.Max(0, beginAfter - beginBefore - copied), result.DiskBytesFreed);
        return result;
    }

    /// <summary>
    /// Rests before the next slice as long as the policy says (<see cref="CompactionThresholdPolicy.RestAfterSlice"/>),
    /// looking at the log every <see cref="BackPressureWatchInterval"/>: the rest ends early once the log has grown to
    /// where compaction hurries.
    /// </summary>
    private async Task RestAsync(TimeSpan sliceTook, long grownBytes, CancellationToken cancellationToken)
    {
        TimeSpan rest = _policy.RestAfterSlice(sliceTook, LogBytes, grownBytes);
        if (rest <= TimeSpan.Zero)
        {
            return;
        }

        long started = _timeProvider.GetTimestamp();
        try
        {
            for (TimeSpan left = rest; left > TimeSpan.Zero && LogBytes < _policy.HurriedFromBytes; left = rest - _timeProvider.GetElapsedTime(started))
            {
                await Task.Delay(left < BackPressureWatchInterval ? left : BackPressureWatchInterval, _timeProvider, cancellationToken).ConfigureAwait(false);
            }
        }
        finally
        {
            _statistics.RecordRest(_timeProvider.GetElapsedTime(started));
        }
    }

    private long LogBytes => _store.Log.TailAddress - _store.Log.BeginAddress;

    /// <summary>
    /// Runs <paramref name="work"/> (the live estimate a pass is followed by) under the same watch as a slice: writers
    /// that push the log over the back-pressure bound meanwhile are held until it ends, and held from the start when the
    /// log is over the bound already. Nothing else holds them between passes, and an estimate that read the disk for 300
    /// ms let unpaced writers take the log from 10 to 76 MB (disk-timeline, docs/benchmarks.md).
    /// </summary>
    public async Task<T> WatchingBackPressureAsync<T>(Func<Task<T>> work)
    {
        var backPressure = new BackPressureHold(this);
        try
        {
            return await RunWatchedAsync(backPressure, _ => work()).ConfigureAwait(false);
        }
        finally
        {
            backPressure.Release();
        }
    }

    /// <summary>
    /// Gives the emptied segment files back through the journal (a checkpoint, in the durable modes) under the same watch
    /// as a slice: unwatched, the writers outran the bound by up to a quarter of the live data while a checkpoint ran.
    /// </summary>
    public Task ReleaseWatchedAsync(CancellationToken cancellationToken) => WatchingBackPressureAsync(() => ReleaseAsync(cancellationToken));

    private async Task<bool> ReleaseAsync(CancellationToken cancellationToken)
    {
        await _journal.ReleaseCompactedLogAsync(cancellationToken).ConfigureAwait(false);
        return true;
    }

    /// <summary>
    /// Holds writers from the start when the log is over the back-pressure bound (and lets writers held before go when it
    /// is not), then runs <paramref name="work"/> while a watch slows them once the log is where compaction hurries and
    /// holds them once it passes the bound, and hurries <paramref name="pace"/> (a slice's) once the log grows to where
    /// compaction hurries or the writers are held. Writers stay held after it: the caller releases <paramref name="backPressure"/>.
    /// </summary>
    /// <remarks>
    /// The work is given whether the writers are held out for all of it: only when held from the start. A hold the watch
    /// begins later may be a pause that lets them in again, so work that relies on the writers being out (a slice's
    /// faster copy) must not read <see cref="BackPressureHold.IsHeld"/> itself.
    /// </remarks>
    private async Task<T> RunWatchedAsync<T>(BackPressureHold backPressure, Func<bool, Task<T>> work, SlicePace? pace = null)
    {
        if (ShouldHoldWriters())
        {
            pace?.Hurry();
            await backPressure.EnterAsync().ConfigureAwait(false);
        }
        else
        {
            backPressure.Release();
        }

        bool heldThroughout = backPressure.IsHeld;
        using var workDone = new CancellationTokenSource();
        Task watch = heldThroughout ? Task.CompletedTask : WatchTheLogAsync(backPressure, pace, workDone.Token);
        try
        {
            return await work(heldThroughout).ConfigureAwait(false);
        }
        finally
        {
            await workDone.CancelAsync().ConfigureAwait(false);
            await watch.ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Checks the log's size every <see cref="BackPressureWatchInterval"/> until the work is done: hurries
    /// <paramref name="pace"/> once the log is at <see cref="CompactionThresholdPolicy.HurriedFromBytes"/>, slows the
    /// writers from there (<see cref="PauseTheWritersAsync"/>), and holds them out once it is over the bound.
    /// </summary>
    private async Task WatchTheLogAsync(BackPressureHold backPressure, SlicePace? pace, CancellationToken workDone)
    {
        try
        {
            var pause = WriterPause.None;
            while (true)
            {
                // The next look an interval after the last pause began, however long it held the writers.
                await Task.Delay(pause.Held < BackPressureWatchInterval ? BackPressureWatchInterval - pause.Held : TimeSpan.Zero, _timeProvider, workDone).ConfigureAwait(false);
                if (pace is not null && LogBytes >= _policy.HurriedFromBytes)
                {
                    pace.Hurry();
                }

                pause = ShouldHoldWriters() ? WriterPause.None : await PauseTheWritersAsync(backPressure, pause.HeldOverShare, workDone).ConfigureAwait(false);

                // Over the bound now, or by the end of the pause: the writers stay held until the caller lets them go.
                if (ShouldHoldWriters() || backPressure.IsHeld)
                {
                    await backPressure.EnterAsync().ConfigureAwait(false);
                    return;
                }
            }
        }
        catch (OperationCanceledException) when (workDone.IsCancellationRequested)
        {
        }
    }

    /// <summary>
    /// Slows the writers while the work under way gives room back: holds them for their share of a
    /// <see cref="BackPressureWatchInterval"/> (<see cref="CompactionThresholdPolicy.WriterHoldShare"/>) less what the
    /// pauses before held them over their shares (<paramref name="heldOverShare"/>; less than nothing when they held
    /// them short), then lets them go, unless the log is over the bound by then. Returns how long they were held, and
    /// by how much the pauses so far, this one included, held them over their shares.
    /// </summary>
    /// <remarks>
    /// A pause ends when its timer fires: timers count whole milliseconds and fire late on busy cores. In a minute and a
    /// half of the load test's unpaced YCSB-A (docs/benchmarks.md, "Writer pauses that keep to their share"), pauses asked
    /// for 21.2 s in all held the writers 24.2 s, and one in twenty ran over by more than 5 ms. Carried to the pauses that
    /// follow, what one ran over or short leaves the writers the share of the time the policy gives them, while the log
    /// is still looked at every interval.
    /// </remarks>
    private async Task<WriterPause> PauseTheWritersAsync(BackPressureHold backPressure, TimeSpan heldOverShare, CancellationToken workDone)
    {
        TimeSpan share = _givingRoomBack ? BackPressureWatchInterval * _policy.WriterHoldShare(LogBytes) : TimeSpan.Zero;
        TimeSpan pause = share - heldOverShare;
        if (pause < MinWriterPause)
        {
            // No pause this time: its share goes to what the pauses before held the writers over theirs.
            return new WriterPause(TimeSpan.Zero, -pause);
        }

        long started = _timeProvider.GetTimestamp();
        backPressure.Close();
        try
        {
            await Task.Delay(pause, _timeProvider, workDone).ConfigureAwait(false);
        }
        finally
        {
            if (!ShouldHoldWriters())
            {
                backPressure.Release();
            }
        }

        TimeSpan held = _timeProvider.GetElapsedTime(started);
        return new WriterPause(held, held - pause);
    }

    /// <summary>How long a pause held the writers, and by how much the pauses so far held them over their shares (less than nothing: short).</summary>
    private readonly record struct WriterPause(TimeSpan Held, TimeSpan HeldOverShare)
    {
        public static WriterPause None => default;
    }

    /// <summary>Whether writers should be held now: the log is over the policy's bound, and the work under way gives room back.</summary>
    private bool ShouldHoldWriters() => _givingRoomBack && _policy.ShouldHoldWriters(LogBytes);

    /// <summary>Whether compacting <paramref name="compactedBytes"/> of log, of which <paramref name="copiedBytes"/> were live, gave room back.</summary>
    private static bool GivesRoomBack(long copiedBytes, long compactedBytes) =>
        compactedBytes <= 0 || copiedBytes < CompactionThresholdPolicy.AlmostAllLive * compactedBytes;

    /// <summary>Copies a slice's live records, then moves the begin address past the slice; returns what it copied and emptied.</summary>
    private async Task<SliceDone> CopyThenShiftAsync(long sliceStart, long sliceEnd, long passEnd, bool writersHeld, SlicePace pace)
    {
        long copied = await _copyLiveRecords(sliceStart, sliceEnd, writersHeld, pace, passEnd).ConfigureAwait(false);
        _store.Log.ShiftBeginAddress(sliceEnd);
        return new SliceDone(copied, DiskBytesEmptied(sliceStart, sliceEnd));
    }

    /// <summary>
    /// Sums the segment files the slice left wholly below the begin address: those a truncation deletes. Measured before
    /// the journal lets them go (it may at once), and each counted by the one slice that passed its end.
    /// </summary>
    private long DiskBytesEmptied(long sliceStart, long sliceEnd)
    {
        long firstEmptied = sliceStart >> _segmentSizeBits;
        long firstKept = sliceEnd >> _segmentSizeBits;
        return _layout?.Segments().Where(segment => segment.Number >= firstEmptied && segment.Number < firstKept).Sum(segment => segment.Length) ?? 0;
    }

    /// <summary>What one slice did.</summary>
    private readonly record struct SliceDone(long CopiedBytes, long DiskBytesFreed);

    /// <summary>
    /// Writers held out of the barrier by compaction, timed for <see cref="CompactionStatistics"/> from the moment the
    /// barrier closes: a hold while the log is over the back-pressure bound, or a pause that slows them short of it.
    /// </summary>
    private sealed class BackPressureHold(CompactionPass pass)
    {
        private long _since;
        private bool _held;
        private Task _drained = Task.CompletedTask;

        public bool IsHeld => _held;

        /// <summary>Holds the writers out, and waits until the writes in flight have finished.</summary>
        public async ValueTask EnterAsync()
        {
            Close();
            await _drained.ConfigureAwait(false);
        }

        /// <summary>
        /// Holds new writers out without waiting for the writes in flight: a pause that only slows the writers needs no
        /// drained barrier, as no copy relies on the writers being out. <see cref="EnterAsync"/> waits for them.
        /// </summary>
        public void Close()
        {
            if (_held)
            {
                return;
            }

            _drained = pass._writes.CloseAsync();
            _held = true;
            _since = pass._timeProvider.GetTimestamp();
        }

        public void Release()
        {
            if (!_held)
            {
                return;
            }

            _held = false;
            pass._writes.Open();
            pass._statistics.RecordBackPressure(pass._timeProvider.GetElapsedTime(_since));
        }
    }
}
