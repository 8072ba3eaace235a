using System;

namespace KeyValueStore.Compaction;

/// <summary>
/// Decides when compaction runs and when it holds writers back, from the log's size (begin to tail: what the segment
/// files hold) and an estimate of its live bytes that every pass measures again. A pass runs once the log reaches
/// <see cref="ThresholdBytes"/>, about <see cref="LogBytesPerLiveByte"/> times the live bytes; while the log is
/// at or over <see cref="BackPressureBytes"/>, a quarter as much again (at most the budget), a pass keeps writers out until a slice brings it
/// back under. A pass compacts the oldest part of the log, as much as should bring it back to three quarters of the
/// threshold (<see cref="PassBytes"/>): the oldest data holds the most garbage, so that part gives back the most for
/// what it copies.
/// </summary>
/// <remarks>
/// The estimate is the engine's, taken after each pass (<see cref="EstimateLiveBytes"/>) and before a pass that would
/// compact with the garbage unmeasured (<see cref="RecordEstimate"/>), steadied over the last few
/// (<see cref="SteadiedLiveEstimate"/>): a sample's error would otherwise move the threshold, the bound and the
/// ratios users read from pass to pass over the same data. The threshold is also kept a
/// quarter above the log a pass leaves when it counts that log live whole, so that an estimate too low cannot make
/// passes follow each other for nothing.
/// <para>
/// Under a <see cref="LogDiskBudget"/>, a pass starts in time to finish before the log reaches the budget: the threshold
/// is at most two thirds of it, or halfway from what the last pass left to the budget when that is more. Writers are
/// held back at the budget at the latest. A log that the last pass left over the budget keeps the threshold the data
/// gives: passes could then give nothing back until deletes do, and the budget refuses writes meanwhile.
/// </para>
/// <para>
/// Jering.KeyValueStore doubled its threshold after every five compactions in a row. Under steady overwrites that made
/// compaction rarer while the garbage grew (docs/benchmarks.md); the threshold now follows the data, up and down.
/// Not thread-safe for writes: the compactor runs one pass at a time. Readers see each value whole.
/// </para>
/// </remarks>
internal sealed class CompactionThresholdPolicy
{

    /// <summary>
    /// The live share from which a compacted part counts as almost all live: compacting it gives back too little to
    /// size a pass by, or to hold writers for (<see cref="CompactionPass"/>).
    /// </summary>
    public const double AlmostAllLive = 0.9;

    /// <summary>How long a pass rests after a slice with time to spare, per unit of the slice's own time (<see cref="RestAfterSlice"/>).</summary>
    public const double RestPerSliceTime = 2;

    private readonly double _logBytesPerLiveByte;
    private readonly long _minimumThresholdBytes;
    private readonly long _budgetBytes;
    private readonly SteadiedLiveEstimate _estimates = new();
    private ThresholdAndEstimate _current;

    /// <param name="minimumThresholdBytes">The log size below which no scheduled pass runs, whatever the estimate (a budget may lower it).</param>
    /// <param name="budget">The most the log may hold; null for no budget.</param>
    /// <param name="logBytesPerLiveByte">How many log bytes per estimated live byte start a pass (the store's <c>CompactionLogToLiveRatio</c>).</param>
    public CompactionThresholdPolicy(long minimumThresholdBytes, LogDiskBudget? budget = null, double logBytesPerLiveByte = MixedStorageKVStoreOptions.DefaultCompactionLogToLiveRatio)
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(minimumThresholdBytes, 0);
        ArgumentOutOfRangeException.ThrowIfLessThan(logBytesPerLiveByte, 1.0);
        _minimumThresholdBytes = minimumThresholdBytes;
        _logBytesPerLiveByte = logBytesPerLiveByte;
        _budgetBytes = budget?.Bytes ?? long.MaxValue;
        _current = new ThresholdAndEstimate(CappedByBudget(minimumThresholdBytes, logBytesLeft: 0), LiveBytesEstimate: null);
    }

    /// <summary>Gets how many log bytes per estimated live byte start a pass.</summary>
    public double LogBytesPerLiveByte => _logBytesPerLiveByte;

    /// <summary>Gets the most the log may hold, <see cref="long.MaxValue"/> when there is no budget.</summary>
    public long BudgetBytes => _budgetBytes;

    /// <summary>Gets the log size from which a scheduled pass runs.</summary>
    public long ThresholdBytes => Current.ThresholdBytes;

    /// <summary>
    /// Gets the threshold together with the live estimate it was set from, as the last pass left them: read apart, a
    /// pass in between could pair one pass's estimate with another's threshold.
    /// </summary>
    public ThresholdAndEstimate Current => System.Threading.Volatile.Read(ref _current);

    /// <summary>Gets the log size from which a pass holds writers back until a slice brings the log under it.</summary>
    public long BackPressureBytes
    {
        get
        {
            long threshold = ThresholdBytes;
            return Math.Min(_budgetBytes, threshold > long.MaxValue - (threshold / 4) ? long.MaxValue : threshold + (threshold / 4));
        }
    }

    /// <summary>Gets the estimate of the live bytes the threshold follows (the passes' estimates, steadied), or null before the first pass.</summary>
    public long? LiveBytesEstimate => Current.LiveBytesEstimate;

    /// <summary>Gets the live fraction of the part the last pass compacted, or null before the first.</summary>
    public double? CompactedLiveFraction { get; private set; }

    /// <summary>
    /// How much of the oldest log a pass should compact: enough to bring a log of <paramref name="logBytes"/> back to
    /// three quarters of the threshold, given that the part compacted is as live as the last pass found its part
    /// (which gives back only its garbage). All of the read-only region before the first pass, and when the log is
    /// almost all live.
    /// </summary>
    /// <param name="logBytes">The log's size now.</param>
    /// <param name="readOnlyBytes">The part a pass can compact: from the begin address to the safe-read-only address.</param>
    public long PassBytes(long logBytes, long readOnlyBytes)
    {
        long excess = logBytes - (ThresholdBytes - (ThresholdBytes / 4));
        if (GarbageUnmeasured || excess <= 0)
        {
            return readOnlyBytes;
        }

        double live = CompactedLiveFraction!.Value;

        double needed = excess / (1 - live);
        return needed >= readOnlyBytes ? readOnlyBytes : (long)needed;
    }

    /// <summary>
    /// How many records a slice copies at once, of at most <paramref name="maxWorkers"/>: one while a log of
    /// <paramref name="logBytes"/> is at the threshold, rising to all of them halfway to the back-pressure bound.
    /// </summary>
    /// <remarks>
    /// Copies in parallel overlap their disk reads, but on a machine of few cores they also take the cores from the
    /// writers: in Commit mode, eight copiers made the writers' p99.9 beside a pass 6-7 times that beside none, and one
    /// copier 2.5 times, for the same throughput and disk (docs/benchmarks.md, "Compaction that leaves the cores to the
    /// writers"). A pass that is falling behind needs its speed more: by halfway to the bound it has all of it, well
    /// before back-pressure would hold the writers.
    /// </remarks>
    public int CopyWorkersFor(long logBytes, int maxWorkers)
    {
        long span = BackPressureBytes - ThresholdBytes;
        if (span <= 0 || maxWorkers <= 1)
        {
            return Math.Max(1, maxWorkers);
        }

        double towardsBound = (double)(logBytes - ThresholdBytes) / span;
        return Math.Clamp(1 + (int)Math.Ceiling(towardsBound * 2 * (maxWorkers - 1)), 1, maxWorkers);
    }

    /// <summary>
    /// Gets the log size from which compaction hurries: halfway from the threshold to the back-pressure bound. From there a
    /// slice copies with all its workers (<see cref="CopyWorkersFor"/>) and no pass rests between slices
    /// (<see cref="RestAfterSlice"/>).
    /// </summary>
    public long HurriedFromBytes
    {
        get
        {
            long threshold = ThresholdBytes;
            return threshold + Math.Max(0, (BackPressureBytes - threshold) / 2);
        }
    }

    /// <summary>
    /// The share of the time writers are held while a log of <paramref name="logBytes"/> waits for compaction: none under
    /// <see cref="HurriedFromBytes"/>, rising in proportion to the log's way from there to the back-pressure bound, all of
    /// it at the bound.
    /// </summary>
    /// <remarks>
    /// Held only at the bound, writers were held in whole stretches, until a slice brought the log back under it: beside
    /// eight unpaced writers of 64-byte records, half of those stretches lasted 29 ms or more and a tenth 59 ms or more
    /// (docs/benchmarks.md, "Writers slowed in proportion"). Held for their share of each look at the log instead, they
    /// write slower the further compaction falls behind, in pauses of a few milliseconds, and seldom reach the bound.
    /// </remarks>
    public double WriterHoldShare(long logBytes)
    {
        long hurriedFrom = HurriedFromBytes;
        if (logBytes <= hurriedFrom)
        {
            return 0;
        }

        long span = BackPressureBytes - hurriedFrom;
        return span <= 0 ? 1 : Math.Min(1, (double)(logBytes - hurriedFrom) / span);
    }

    /// <summary>
    /// Whether a pass that starts on a log of <paramref name="logBytes"/> can be expected to give room back, so that
    /// holding writers brings the log under the bound: the last pass found its part not almost all live; or, before any
    /// pass has measured, the live estimate says the log is not almost all live.
    /// </summary>
    /// <remarks>
    /// A part almost all live gives nothing back, and writers held beside it wait for nothing (<see cref="AlmostAllLive"/>),
    /// so a pass used to wait for its first slice to show that it gives room back, and the first pass of a store held no
    /// writer until then. Beside unpaced overwrites of 64-byte records, that first slice let the writers take the log well
    /// over the bound, and the hold that followed was the run's longest, 140-170 ms (docs/benchmarks.md, "Writers slowed
    /// in proportion"). A store's first scheduled pass is preceded by a live estimate (the compactor takes one while the
    /// garbage is unmeasured), which tells a load of new keys, all live, from overwrites. After a pass that measured its
    /// part almost all live, the estimate cannot say where the garbage is, and the next pass still waits for a slice.
    /// </remarks>
    public bool PassExpectedToGiveRoomBack(long logBytes) =>
        CompactedLiveFraction is double lastPassLive
            ? lastPassLive < AlmostAllLive
            : LiveBytesEstimate is long live && live < AlmostAllLive * logBytes;

    /// <summary>
    /// How long a pass rests before its next slice after one that took <paramref name="sliceTook"/>, in which the log's
    /// tail grew by <paramref name="grownBytes"/> to a log of <paramref name="logBytes"/>: <see cref="RestPerSliceTime"/>
    /// times the slice's time while the log is under <see cref="HurriedFromBytes"/>, and no longer than the log, growing
    /// as it did during the slice, takes to get there; none from there on.
    /// </summary>
    /// <remarks>
    /// A slice's copies read the disk and append to the log, whose pages then flush: beside a pass, Commit mode's group
    /// commits waited for the disk longer, and its writers' p99.9 was twice that beside none (docs/benchmarks.md,
    /// "Compaction rests between slices"). Resting between slices spreads that over more time. The cap on the log's growth
    /// keeps unpaced writers from taking the log past the point where the pass must hurry while it rests: resting a
    /// fixed share of the time let the disk reach 6-12 times the live data in some second of an unpaced run.
    /// </remarks>
    public TimeSpan RestAfterSlice(TimeSpan sliceTook, long logBytes, long grownBytes)
    {
        long hurriedFrom = HurriedFromBytes;
        if (sliceTook <= TimeSpan.Zero || logBytes >= hurriedFrom)
        {
            return TimeSpan.Zero;
        }

        TimeSpan rest = sliceTook * RestPerSliceTime;
        if (grownBytes <= 0)
        {
            return rest;
        }

        TimeSpan untilHurried = sliceTook * ((double)(hurriedFrom - logBytes) / grownBytes);
        return untilHurried < rest ? untilHurried : rest;
    }

    /// <summary>
    /// Gets whether no pass has measured the log's garbage: there was none yet, or the last found its part almost all
    /// live. A pass would then compact the whole read-only region (<see cref="PassBytes"/>), and the estimate the
    /// threshold follows may be far behind the data: the compactor takes a fresh one first (<see cref="RecordEstimate"/>).
    /// </summary>
    public bool GarbageUnmeasured => CompactedLiveFraction is not double live || live >= AlmostAllLive;

    /// <summary>Returns true when a log of <paramref name="logBytes"/> should be compacted.</summary>
    public bool ShouldCompact(long logBytes) => logBytes >= ThresholdBytes;

    /// <summary>Returns true when a log of <paramref name="logBytes"/> is so far over the threshold that writers must wait for compaction.</summary>
    public bool ShouldHoldWriters(long logBytes) => logBytes >= BackPressureBytes;

    /// <summary>
    /// Records a pass and sets the threshold from the live bytes measured after it, steadied over the last passes (remarks).
    /// Returns the new threshold when it changed, else null.
    /// </summary>
    /// <param name="liveBytesEstimate">The log's live bytes, measured after the pass.</param>
    /// <param name="logBytesLeft">What the pass left of the log it started from: the bytes it copied and those it did not reach.</param>
    /// <param name="copiedBytes">The live bytes the pass copied out of the part it compacted.</param>
    /// <param name="compactedBytes">The bytes of log the pass compacted, from the begin address to its end; 0 when not known.</param>
    public long? RecordPass(long liveBytesEstimate, long logBytesLeft, long copiedBytes = 0, long compactedBytes = 0)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(liveBytesEstimate);
        ArgumentOutOfRangeException.ThrowIfNegative(logBytesLeft);
        ArgumentOutOfRangeException.ThrowIfNegative(copiedBytes);
        if (compactedBytes > 0)
        {
            CompactedLiveFraction = Math.Clamp((double)copiedBytes / compactedBytes, 0, 1);
        }

        long liveBytes = _estimates.Add(liveBytesEstimate);
        long threshold = CappedByBudget(
            Math.Max(
                _minimumThresholdBytes,
                Math.Max(SaturatingMultiply(liveBytes, _logBytesPerLiveByte), SaturatingAdd(logBytesLeft, logBytesLeft / 4))),
            logBytesLeft);
        bool changed = threshold != ThresholdBytes;
        System.Threading.Volatile.Write(ref _current, new ThresholdAndEstimate(threshold, liveBytes));
        return changed ? threshold : null;
    }

    /// <summary>
    /// Records an estimate of the live bytes taken outside a pass, before one that would compact with its garbage
    /// unmeasured (<see cref="GarbageUnmeasured"/>), and raises the threshold to <see cref="LogBytesPerLiveByte"/> times the estimate it steadies to (at
    /// most as the budget allows). Never lowers it: a pass that runs sets it from what it finds. Returns the new
    /// threshold when it changed, else null.
    /// </summary>
    /// <remarks>
    /// A threshold set while the data grew lags it: after a load of new keys the last pass's estimate was 12 MB for 35 MB
    /// of records, all live, and the pass that followed copied all of them for nothing, for the whole of a 20-second read
    /// run whose reads it halved (docs/benchmarks.md, "A fresh estimate before a pass that would compact blind").
    /// </remarks>
    /// <param name="liveBytesEstimate">The log's live bytes, estimated now.</param>
    public long? RecordEstimate(long liveBytesEstimate)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(liveBytesEstimate);
        ThresholdAndEstimate before = Current;
        long liveBytes = _estimates.Add(liveBytesEstimate);
        long threshold = Math.Max(before.ThresholdBytes, CappedByBudget(SaturatingMultiply(liveBytes, _logBytesPerLiveByte), logBytesLeft: 0));
        System.Threading.Volatile.Write(ref _current, new ThresholdAndEstimate(threshold, liveBytes));
        return threshold != before.ThresholdBytes ? threshold : null;
    }

    /// <summary>A threshold and the live estimate it was set from (null before the first pass).</summary>
    public sealed record ThresholdAndEstimate(long ThresholdBytes, long? LiveBytesEstimate);

    /// <summary>Lowers <paramref name="threshold"/> so that a pass can finish before the log reaches the budget (remarks).</summary>
    private long CappedByBudget(long threshold, long logBytesLeft)
    {
        if (_budgetBytes == long.MaxValue || logBytesLeft >= _budgetBytes)
        {
            return threshold;
        }

        long cap = Math.Max(_budgetBytes / 3 * 2, logBytesLeft + ((_budgetBytes - logBytesLeft) / 2));
        return Math.Min(threshold, cap);
    }

    private static long SaturatingAdd(long a, long b) => a > long.MaxValue - b ? long.MaxValue : a + b;

    private static long SaturatingMultiply(long a, double factor) => a >= long.MaxValue / factor ? long.MaxValue : (long)(a * factor);
}
