using System;
using System.Collections.Generic;
using System.Linq;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>
/// A workload: a name and the share of each operation type. A–F are the YCSB core workloads, except E
/// (short range scans), absent because the store has no scans. W is ours: YCSB has no write-only
/// workload, and durable-write throughput (issue 4) needs one.
/// </summary>
internal sealed class Workload
{
    private readonly (OperationType Type, double Share)[] _mix;

    private Workload(string name, string description, KeyDistribution defaultDistribution, params (OperationType Type, double Share)[] mix)
        : this(name, description, isYcsb: true, defaultDistribution, mix)
    {
    }

    private Workload(string name, string description, bool isYcsb, KeyDistribution defaultDistribution, params (OperationType Type, double Share)[] mix)
    {
        Name = name;
        Description = description;
        IsYcsb = isYcsb;
        DefaultDistribution = defaultDistribution;
        _mix = mix;
    }

    public static Workload A { get; } = new("A", "50% read, 50% update", KeyDistribution.Zipfian, (OperationType.Read, 0.5), (OperationType.Update, 0.5));

    public static Workload B { get; } = new("B", "95% read, 5% update", KeyDistribution.Zipfian, (OperationType.Read, 0.95), (OperationType.Update, 0.05));

    public static Workload C { get; } = new("C", "100% read", KeyDistribution.Zipfian, (OperationType.Read, 1.0));

    // YCSB runs D with the "latest" distribution: reads go mostly to what was just inserted.
    public static Workload D { get; } = new("D", "95% read, 5% insert", KeyDistribution.Latest, (OperationType.Read, 0.95), (OperationType.Insert, 0.05));

    public static Workload F { get; } = new("F", "50% read, 50% read-modify-write", KeyDistribution.Zipfian, (OperationType.Read, 0.5), (OperationType.ReadModifyWrite, 0.5));

    // Updates only, of the loaded keys, with the same distributions as the others: every operation is one
    // write, so with a durable backend the run measures durable upserts per second.
    public static Workload W { get; } = new("W", "write-only: 100% updates of loaded records, for durable-write throughput", isYcsb: false, KeyDistribution.Zipfian, (OperationType.Update, 1.0));

    public static IReadOnlyList<Workload> All { get; } = [A, B, C, D, F, W];

    public string Name { get; }

    public string Description { get; }

    /// <summary>Gets whether this is one of YCSB's core workloads (the report says "YCSB A"), not one of ours.</summary>
    public bool IsYcsb { get; }

    /// <summary>Gets the distribution used when --distribution is not given: YCSB's for A–F, zipfian for W.</summary>
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
