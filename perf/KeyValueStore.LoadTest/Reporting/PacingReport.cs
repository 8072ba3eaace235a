namespace KeyValueStore.LoadTest.Reporting;

/// <summary>With --rate: the rate aimed at, and how late against their workers' schedules the run's operations were issued.</summary>
/// <param name="TargetOperationsPerSecond">--rate: all workers together.</param>
/// <param name="IssueLagMicroseconds">Per operation, its issue time less its scheduled time; a run that keeps up shows about the timer's resolution (a millisecond) at most.</param>
internal sealed record PacingReport(long TargetOperationsPerSecond, LatencyReport IssueLagMicroseconds);
