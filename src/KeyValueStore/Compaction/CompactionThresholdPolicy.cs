using System;

namespace KeyValueStore.Compaction;

/// <summary>
/// Decides whether a scheduled compaction runs. The log's safe-read-only region (the part compaction
/// can work on) is measured each time: below the threshold, skip; at or above it, compact the oldest
/// fifth. After <see cref="CompactionsBeforeRaise"/> compactions in a row the threshold doubles, so a
/// log that is already compact but large is not compacted again and again for nothing.
/// </summary>
/// <remarks>Semantics carried over from Jering.KeyValueStore. Not thread-safe: the compactor serializes its runs.</remarks>
internal sealed class CompactionThresholdPolicy
{
    public const int CompactionsBeforeRaise = 5;

    /// <summary>The part of the measured region a scheduled compaction works on: the oldest fifth.</summary>
    public const int RegionFraction = 5;

    private int _consecutiveCompactions;

    public CompactionThresholdPolicy(long initialThresholdBytes)
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(initialThresholdBytes, 0);
        ThresholdBytes = initialThresholdBytes;
    }

    public long ThresholdBytes { get; private set; }

    /// <summary>Returns true when a region of this size should be compacted. A skip ends a run of compactions.</summary>
    public bool ShouldCompact(long safeReadOnlyRegionBytes)
    {
        if (safeReadOnlyRegionBytes < ThresholdBytes)
        {
            _consecutiveCompactions = 0;
            return false;
        }

        return true;
    }

    /// <summary>Records a completed compaction. Returns the new threshold when this compaction raised it, else null.</summary>
    public long? RecordCompaction()
    {
        if (++_consecutiveCompactions < CompactionsBeforeRaise)
        {
            return null;
        }

        _consecutiveCompactions = 0;
        ThresholdBytes = ThresholdBytes > long.MaxValue / 2 ? long.MaxValue : ThresholdBytes * 2;
        return ThresholdBytes;
    }
}
