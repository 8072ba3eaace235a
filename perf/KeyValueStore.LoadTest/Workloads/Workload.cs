using System;
using System.Collections.Generic;
using System.Linq;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>
/// One of the YCSB core workloads: a name and the share of each operation type. E (short range
/// scans) is absent because the store has no scans.
/// </summary>
internal sealed class Workload
{
    private readonly (OperationType Type, double Share)[] _mix;

    private Workload(string name, string description, KeyDistribution defaultDistribution, params (OperationType Type, double Share)[] mix)
    {
        Name = name;
        Description = description;
        DefaultDistribution = defaultDistribution;
        _mix = mix;
    }

    public static Workload A { get; } = new("A", "50% read, 50% update", KeyDistribution.Zipfian, (OperationType.Read, 0.5), (OperationType.Update, 0.5));

    public static Workload B { get; } = new("B", "95% read, 5% update", KeyDistribution.Zipfian, (OperationType.Read, 0.95), (OperationType.Update, 0.05));

    public static Workload C { get; } = new("C", "100% read", KeyDistribution.Zipfian, (OperationType.Read, 1.0));

    // YCSB runs D with the "latest" distribution: reads go mostly to what was just inserted.
    public static Workload D { get; } = new("D", "95% read, 5% insert", KeyDistribution.Latest, (OperationType.Read, 0.95), (OperationType.Insert, 0.05));

    public static Workload F { get; } = new("F", "50% read, 50% read-modify-write", KeyDistribution.Zipfian, (OperationType.Read, 0.5), (OperationType.ReadModifyWrite, 0.5));

    public static IReadOnlyList<Workload> All { get; } = [A, B, C, D, F];

    public string Name { get; }

    public string Description { get; }

    /// <summary>Gets the distribution YCSB runs this workload with, used when --distribution is not given.</summary>
    public KeyDistribution DefaultDistribution { get; }

    /// <summary>Gets the operation types this workload issues.</summary>
    public IEnumerable<OperationType> OperationTypes => _mix.Select(entry => entry.Type);

    public static Workload? Find(string name) =>
        All.FirstOrDefault(workload => string.Equals(workload.Name, name, StringComparison.OrdinalIgnoreCase));

    /// <summary>Picks the next operation type from a uniform draw in [0, 1).</summary>
    public OperationType Pick(double draw)
    {
        double cumulative = 0;
        foreach ((OperationType type, double share) in _mix)
        {
            cumulative += share;
            if (draw < cumulative)
            {
                return type;
            }
        }

        return _mix[^1].Type; // Rounding of the shares can leave draws just below 1 unassigned.
    }

    public override string ToString() => Name;
}
