namespace KeyValueStore.LoadTest.Reporting;

/// <summary>The options the run used, resolved (defaults filled in).</summary>
internal sealed record SettingsReport(
    string Backend,
    string BackendDescription,
    string Workload,
    string WorkloadDescription,
    string Distribution,
    int Threads,
    int Seconds,
    long Records,
    int ValueSize,
    long? MemorySizeBytes,
    string RunDirectory,
    bool Verify,
    long Seed);
