namespace KeyValueStore.LoadTest.Reporting;

/// <summary>A phase without per-operation latencies (the load).</summary>
internal sealed record PhaseReport(long Operations, double Seconds, double OperationsPerSecond, bool Completed);
