using System.Collections.Generic;

namespace KeyValueStore.Charts;

/// <summary>One row of a BenchmarkDotNet CSV report: one benchmark case.</summary>
/// <param name="Workload">The benchmark class (the report's Type column).</param>
/// <param name="Method">The benchmark method.</param>
/// <param name="Store">The Store parameter: which store ran.</param>
/// <param name="Parameters">The other parameters that apply to the case, as name=value, in column order.</param>
/// <param name="MeanNanoseconds">Mean time per operation.</param>
/// <param name="ErrorNanoseconds">Half the 99.9% confidence interval of the mean; null when BenchmarkDotNet gives none.</param>
/// <param name="AllocatedBytes">Managed bytes allocated per operation.</param>
internal sealed record BenchmarkRow(
    string Workload,
    string Method,
    string Store,
    IReadOnlyList<string> Parameters,
    double MeanNanoseconds,
    double? ErrorNanoseconds,
    double AllocatedBytes)
{
    /// <summary>Gets the case without its store: the method and its other parameters. Bars of one group are compared.</summary>
    public string Group => Parameters.Count == 0 ? Method : $"{Method} {string.Join(' ', Parameters)}";

    /// <summary>Gets operations per second.</summary>
    public double OperationsPerSecond => 1e9 / MeanNanoseconds;
}
