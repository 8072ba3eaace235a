namespace KeyValueStore.LoadTest.Reporting;

/// <summary>One operation type of the run phase; <see cref="NotFound"/> counts reads (of a read-modify-write too) that found no value.</summary>
internal sealed record OperationReport(string Type, long Count, long NotFound, double OperationsPerSecond, LatencyReport LatencyMicroseconds);
