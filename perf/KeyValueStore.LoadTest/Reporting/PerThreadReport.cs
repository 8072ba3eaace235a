using System.Collections.Generic;

namespace KeyValueStore.LoadTest.Reporting;

internal sealed record PerThreadReport(double MeanOperationsPerSecond, double MinOperationsPerSecond, double MaxOperationsPerSecond, IReadOnlyList<long> Operations);
