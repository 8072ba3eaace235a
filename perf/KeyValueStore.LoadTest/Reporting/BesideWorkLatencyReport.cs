namespace KeyValueStore.LoadTest.Reporting;

/// <summary>
/// The run's single operations of one type that had the same background work beside them: "neither", "compaction" (a
/// pass ran at some moment of the operation, no checkpoint) or "checkpoint" (a checkpoint ran at some moment of it).
/// </summary>
/// <param name="Type">The operation type.</param>
/// <param name="Beside">What ran beside: neither, compaction or checkpoint.</param>
/// <param name="Count">How many operations.</param>
/// <param name="Share">Their share of the run's operations of that type.</param>
/// <param name="LatencyMicroseconds">Their latencies.</param>
/// <param name="P999PerNeither">Their p99.9 over the p99.9 of the same type with neither running; null for that row, or when either is empty.</param>
internal sealed record BesideWorkLatencyReport(string Type, string Beside, long Count, double Share, LatencyReport LatencyMicroseconds, double? P999PerNeither);
