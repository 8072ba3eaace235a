namespace KeyValueStore.LoadTest.Reporting;

/// <summary>The run phase: totals, and per worker ("thread") the operations and their rate.</summary>
internal sealed record RunReport(long Operations, double Seconds, double OperationsPerSecond, PerThreadReport PerThread, bool Completed);
