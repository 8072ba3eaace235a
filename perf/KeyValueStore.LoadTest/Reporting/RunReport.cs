namespace KeyValueStore.LoadTest.Reporting;

/// <summary>The run phase: totals, per worker ("thread") the operations and their rate, and what the process allocated meanwhile.</summary>
/// <param name="Operations">Operations completed in the run phase.</param>
/// <param name="Seconds">The run phase's length.</param>
/// <param name="OperationsPerSecond"><paramref name="Operations"/> over <paramref name="Seconds"/>.</param>
/// <param name="PerThread">Each worker's operations and rate.</param>
/// <param name="Completed">Whether the phase ran its whole length (false when interrupted).</param>
/// <param name="AllocatedBytes">Bytes the whole process allocated during the run phase: the backend, the workers and the sampling.</param>
/// <param name="AllocatedBytesPerOperation"><paramref name="AllocatedBytes"/> over <paramref name="Operations"/>; null when the run did none.</param>
/// <param name="GcPauseMilliseconds">How long the garbage collector held the whole process's threads during the run phase, all its pauses together.</param>
/// <param name="Gen2Collections">The full collections during the run phase.</param>
internal sealed record RunReport(long Operations, double Seconds, double OperationsPerSecond, PerThreadReport PerThread, bool Completed, long AllocatedBytes, double? AllocatedBytesPerOperation, double GcPauseMilliseconds, int Gen2Collections);
