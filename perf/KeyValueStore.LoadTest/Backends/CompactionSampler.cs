using System;
using KeyValueStore.Compaction;
using KeyValueStore.Durability;
using KeyValueStore.Engine;
using KeyValueStore.LoadTest.Measurement;
using KeyValueStore.LoadTest.Reporting;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// Samples the engine's compactor for <see cref="ICompactionReporter"/>, and marks its background work for
/// <see cref="IBackgroundWorkObserver"/>; the engine and typed backends share it.
/// </summary>
internal static class CompactionSampler
{
    public static BackgroundMarks Mark(FasterRecordStore store) => new(store.Compactor.Passes.Mark(), store.Journal.Checkpoints?.Mark());

    public static CompactionSample Sample(FasterRecordStore store, long bytesOnDisk, double seconds)
    {
        CompactionStatistics statistics = store.Compactor.Statistics;
        // Together, so that a pass ending meanwhile cannot pair its estimate with the threshold before it.
        CompactionThresholdPolicy.ThresholdAndEstimate current = store.Compactor.ThresholdAndEstimate;
        long? live = current.LiveBytesEstimate;
        return new CompactionSample(
            seconds,
            bytesOnDisk,
            store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress,
            live,
            live is > 0 ? (double)bytesOnDisk / live.Value : null,
            statistics.Passes,
            statistics.LogBytesReclaimed,
            statistics.DiskBytesFreed,
            WritersHeld(store).Total.TotalMilliseconds,
            WritersHeld(store).Longest.TotalMilliseconds,
            statistics.BackPressure.TotalMilliseconds,
            statistics.WaitedForRoom.TotalMilliseconds,
            statistics.LongestWaitForRoom.TotalMilliseconds,
            current.ThresholdBytes);
    }

    /// <summary>
    /// The time writers were held, and the longest hold: at the store's write barrier (back-pressure, and Checkpoint
    /// mode's checkpoints) and, in Commit mode, at the journal's applies (its checkpoints). The two can overlap; the
    /// total counts such a stretch twice.
    /// </summary>
    private static (TimeSpan Total, TimeSpan Longest) WritersHeld(FasterRecordStore store) =>
        store.Journal is WriteAheadJournal { Applies: var applies }
            ? (store.Writes.TimeClosed + applies.TimeClosed, TimeSpan.FromTicks(Math.Max(store.Writes.LongestClosed.Ticks, applies.LongestClosed.Ticks)))
            : (store.Writes.TimeClosed, store.Writes.LongestClosed);
}
