namespace KeyValueStore.LoadTest.Reporting;

/// <summary>Latencies in microseconds; quantiles at most 0.79% above the exact value (see Measurement/LatencyHistogram).</summary>
internal sealed record LatencyReport(double Mean, double P50, double P99, double P999, double Max);
