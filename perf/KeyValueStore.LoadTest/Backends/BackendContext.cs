namespace KeyValueStore.LoadTest.Backends;

/// <summary>What a backend is opened with: its own empty directory and the run's sizes.</summary>
/// <param name="Directory">An empty directory the backend owns; the load test deletes it after the run.</param>
/// <param name="Records">Records loaded before the run, a sizing hint (FASTER's index).</param>
/// <param name="ValueSize">Bytes per value.</param>
/// <param name="MemorySizeBytes">--memory-size: log memory of the FASTER store; other backends ignore it.</param>
/// <param name="Compaction">--compaction: whether this store compacts its log; other backends ignore it.</param>
/// <param name="DiskBudgetBytes">--disk-budget: this store's <see cref="MixedStorageKVStoreOptions.LogDiskBudgetBytes"/>, 0 for none; other backends ignore it.</param>
/// <param name="WriteAheadLogDirectory">--wal-dir: an empty directory for this store's write-ahead log in Commit mode (<see cref="MixedStorageKVStoreOptions.WriteAheadLogDirectory"/>), null for the store's own; other backends ignore it.</param>
/// <param name="MutableFraction">--mutable-fraction: this store's <see cref="MixedStorageKVStoreOptions.LogMutableFraction"/>, null for its default; other backends ignore it.</param>
/// <param name="SegmentSizeBytes">--segment-size: this store's segment file size in bytes, null for the load test's; other backends ignore it.</param>
/// <param name="CompactionRatio">--compaction-ratio: this store's <see cref="MixedStorageKVStoreOptions.CompactionLogToLiveRatio"/>, null for its default; other backends ignore it.</param>
/// <param name="Endpoint">--endpoint: the host:port of the server the redis backend measures, null when none is given; other backends ignore it.</param>
internal sealed record BackendContext(string Directory, long Records, int ValueSize, long MemorySizeBytes, bool Compaction = true, long DiskBudgetBytes = 0, string? WriteAheadLogDirectory = null, string? Endpoint = null, double? MutableFraction = null, double? CompactionRatio = null, long? SegmentSizeBytes = null);
