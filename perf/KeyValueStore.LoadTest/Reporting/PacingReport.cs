namespace KeyValueStore.LoadTest.Reporting;

/// <summary>With --rate: the rate aimed at, and how late against their workers' schedules the run's operations were issued.</summary>
/// <param name="TargetOperationsPerSecond">--rate: all workers together.</param>
/// <param name="IssueLagMicroseconds">
/// Per operation, its issue time less its start time. Start times are released each millisecond, so a run that keeps
/// up shows about half a millisecond at the median (the dictionary backend at 20,000 ops/s on the 2-core VM: 0.57 ms,
/// p99 1.1 ms, p99.9 3.1 ms).
/// </param>
internal sealed record PacingReport(long TargetOperationsPerSecond, LatencyReport IssueLagMicroseconds);
