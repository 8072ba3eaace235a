namespace KeyValueStore.LoadTest.Reporting;

/// <summary>The options the run used, resolved (defaults filled in); memory and page sizes only for the FASTER store, the endpoint only for the redis backend.</summary>
internal sealed record SettingsReport(
    string Backend,
    string BackendDescription,
    string Workload,
    string WorkloadDescription,
    string Distribution,
    int Threads,
    int BatchSize,
    int Seconds,
    long Records,
    int ValueSize,
    long? MemorySizeBytes,
    long? PageSizeBytes,
    bool? Compaction,
    long? DiskBudgetBytes,
    string RunDirectory,
    string? WriteAheadLogDirectory,
    string? Endpoint,
    bool Verify,
    long Seed,
    bool Cold = false,
    int WarmupSeconds = 0,
    double? MutableFraction = null,
    long? Rate = null,
    double? CompactionRatio = null,
    long? SegmentSizeBytes = null);
