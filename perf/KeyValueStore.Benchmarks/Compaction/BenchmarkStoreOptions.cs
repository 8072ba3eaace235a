namespace KeyValueStore.Benchmarks.Compaction;

/// <summary>The store configuration the compaction measurements share: a log mostly on disk.</summary>
internal static class BenchmarkStoreOptions
{
    public const int ScheduledIntervalMs = 100;

    public static MixedStorageKVStoreOptions For(CompactionMode mode) => new()
    {
        PageSizeBits = 18,       // 256 KB pages
        MemorySizeBits = 22,     // 4 MB of log in memory
        SegmentSizeBits = 22,    // 4 MB segment files
        IndexNumBuckets = 1 << 16,
        TimeBetweenLogCompactionsMS = mode == CompactionMode.Scheduled ? ScheduledIntervalMs : -1,
    };
}
