using System;

namespace KeyValueStore.Compaction;

/// <summary>
/// Decides when a scheduled compaction pass runs: when the log (begin to tail, what the segment files hold) reaches
/// <see cref="TargetLogBytesPerLiveByte"/> times the estimate of its live bytes, and never below the configured minimum.
/// Each pass measures the estimate again, so the threshold follows the live data up and down.
/// </summary>
/// <remarks>
/// The estimate: a pass copies the live records of the part it compacts while writers are held, so the bytes it
/// appended are exactly the live bytes of that part. The part it did not reach (the mutable region and whatever was
/// written during the pass) is counted as live whole. The estimate is therefore an upper bound, and the log stays
/// within about twice the live data plus the memory size however long the store runs.
/// <para>
/// Jering.KeyValueStore doubled the threshold after every five compactions in a row. Under steady heavy overwrites that
/// made compaction rarer and rarer while garbage grew (docs/benchmarks.md), so the threshold now follows the data
/// instead. Not thread-safe: the compactor runs one pass at a time.
/// </para>
/// </remarks>
internal sealed class CompactionThresholdPolicy
{
    /// <summary>How many log bytes per estimated live byte start a pass.</summary>
    public const int TargetLogBytesPerLiveByte = 2;

    private readonly long _minimumThresholdBytes;

    /// <param name="minimumThresholdBytes">The log size below which no scheduled pass runs, whatever the estimate.</param>
    public CompactionThresholdPolicy(long minimumThresholdBytes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(minimumThresholdBytes, 0);
        _minimumThresholdBytes = minimumThresholdBytes;
        ThresholdBytes = minimumThresholdBytes;
    }

    /// <summary>Gets the log size from which a scheduled pass runs.</summary>
    public long ThresholdBytes { get; private set; }

    /// <summary>Gets the estimate of the live bytes measured by the last pass, or null before the first.</summary>
    public long? LiveBytesEstimate { get; private set; }

    /// <summary>Returns true when a log of <paramref name="logBytes"/> should be compacted.</summary>
    public bool ShouldCompact(long logBytes) => logBytes >= ThresholdBytes;

    /// <summary>Records a pass and sets the threshold from its estimate. Returns the new threshold when it changed, else null.</summary>
    /// <param name="copiedBytes">The live bytes the pass copied out of the part it compacted.</param>
    /// <param name="uncompactedBytes">The bytes of the log the pass did not reach, counted as live.</param>
    public long? RecordPass(long copiedBytes, long uncompactedBytes)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(copiedBytes);
        ArgumentOutOfRangeException.ThrowIfNegative(uncompactedBytes);
        long estimate = SaturatingAdd(copiedBytes, uncompactedBytes);
        LiveBytesEstimate = estimate;
        long threshold = Math.Max(_minimumThresholdBytes, estimate > long.MaxValue / TargetLogBytesPerLiveByte ? long.MaxValue : estimate * TargetLogBytesPerLiveByte);
        if (threshold == ThresholdBytes)
        {
            return null;
        }

        ThresholdBytes = threshold;
        return threshold;
    }

    private static long SaturatingAdd(long a, long b) => a > long.MaxValue - b ? long.MaxValue : a + b;
}
