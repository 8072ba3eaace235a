using KeyValueStore.Compaction;
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
        long? live = store.Compactor.LiveBytesEstimate;
        return new CompactionSample(
            seconds,
            bytesOnDisk,
            store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress,
            live,
            live is > 0 ? (double)bytesOnDisk / live.Value : null,
            statistics.Passes,
            statistics.LogBytesReclaimed,
            statistics.DiskBytesFreed,
            store.Writes.TimeClosed.TotalMilliseconds,
            store.Writes.LongestClosed.TotalMilliseconds,
            statistics.BackPressure.TotalMilliseconds,
            statistics.WaitedForRoom.TotalMilliseconds,
            statistics.LongestWaitForRoom.TotalMilliseconds);
    }
}
