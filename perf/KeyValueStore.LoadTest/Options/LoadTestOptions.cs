using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Options;

/// <summary>A validated command line. The defaults are the README's demo: about 11 seconds on a 2-core machine.</summary>
internal sealed record LoadTestOptions
{
    public const int DefaultThreads = 8;
    public const int DefaultSeconds = 10;
    public const long DefaultRecords = 100_000;
    public const int DefaultValueSize = 256;
    public const long DefaultMemorySize = 64L << 20; // The store's own default (MemorySizeBits 26).
    public const long DefaultSeed = 1;
    public const int DefaultBatchSize = 1;

    /// <summary>Gets the number of concurrent asynchronous workers, each issuing one operation at a time.</summary>
    public int Threads { get; init; } = DefaultThreads;

    /// <summary>Gets the length of the run phase, after the load.</summary>
    public int Seconds { get; init; } = DefaultSeconds;

    /// <summary>Gets the number of records written before the run phase.</summary>
    public long Records { get; init; } = DefaultRecords;

    public int ValueSize { get; init; } = DefaultValueSize;

    /// <summary>Gets --value-fill: what a value's bytes after its id and version are, random (nothing to compress) or compressible.</summary>
    public ValueFill ValueFill { get; init; } = ValueFill.Random;

    public Workload Workload { get; init; } = Workload.A;

    /// <summary>
    /// Gets --batch-size: the updates and inserts a worker writes as one atomic batch. 1 writes each on its
    /// own; above 1 the backend must implement <see cref="IBatchWriter"/>. Reads and read-modify-writes stay single.
    /// </summary>
    public int BatchSize { get; init; } = DefaultBatchSize;

    public KeyDistribution Distribution { get; init; } = Workload.A.DefaultDistribution;

    public BackendDescriptor Backend { get; init; } = BackendCatalog.Default;

    /// <summary>Gets the log memory of the FASTER store in bytes, a power of two.</summary>
    public long MemorySizeBytes { get; init; } = DefaultMemorySize;

    /// <summary>Gets --compaction: whether this store's scheduled compaction runs (on by default), so that a run can show its cost against one without it.</summary>
    public bool Compaction { get; init; } = true;

    /// <summary>Gets --disk-budget: the typed and faster backends' hard budget for their log in bytes (<see cref="MixedStorageKVStoreOptions.LogDiskBudgetBytes"/>); 0 for none.</summary>
    public long DiskBudgetBytes { get; init; }

    /// <summary>Gets --mutable-fraction: the typed and faster backends' <see cref="MixedStorageKVStoreOptions.LogMutableFraction"/>; null for the store's default for its durability mode.</summary>
    public double? MutableFraction { get; init; }

    /// <summary>Gets --segment-size: the typed and faster backends' segment file size in bytes, a power of two; null for the load test's 16 MB (or the page, when larger).</summary>
    public long? SegmentSizeBytes { get; init; }

    /// <summary>Gets --compaction-ratio: the typed and faster backends' <see cref="MixedStorageKVStoreOptions.CompactionLogToLiveRatio"/>; null for the store's default.</summary>
    public double? CompactionRatio { get; init; }

    /// <summary>Gets --dir: where the run's fresh directory is made; null for the system's temporary directory.</summary>
    public string? Directory { get; init; }

    /// <summary>Gets --wal-dir: where a fresh directory for the Commit-mode store's write-ahead log is made (a device of its own); null for the store's directory.</summary>
    public string? WriteAheadLogDirectory { get; init; }

    /// <summary>Gets --endpoint: the host:port of the server the redis backend measures; null for none (the other backends connect to none).</summary>
    public string? Endpoint { get; init; }

    public string? JsonPath { get; init; }

    public bool Verify { get; init; }

    /// <summary>Gets --cold: drop the operating system's page cache between the load and the run (<see cref="Running.PageCache"/>).</summary>
    public bool Cold { get; init; }

    /// <summary>
    /// Gets --rate: the operations per second the workers issue together in the warm-up and run phases, on an even
    /// schedule (<see cref="Running.Metronome"/>); null for each worker to issue its next operation as soon as its last
    /// one completes. The load phase is never paced.
    /// </summary>
    public long? Rate { get; init; }

    /// <summary>
    /// Gets --max-allocated-per-op: the most bytes the whole process may allocate per operation in the run phase
    /// before the run fails (<see cref="ExitCodes.AllocationOverLimit"/>); null for no limit. CI keeps allocation from
    /// creeping back up with it (issue 19).
    /// </summary>
    public long? MaxAllocatedBytesPerOperation { get; init; }

    /// <summary>Gets --warmup: seconds of the workload run, unmeasured, between the load and the measured run; 0 for none.</summary>
    public int WarmupSeconds { get; init; }

    public long Seed { get; init; } = DefaultSeed;

    public bool ShowHelp { get; init; }
}
