namespace KeyValueStore.Extensions.DependencyInjection.Health;

/// <summary>Where a store's health check stops calling it healthy.</summary>
public sealed class StoreHealthBounds
{
    /// <summary>Gets or sets the files' bytes over the live bytes above which the store is degraded.</summary>
    /// <value>The default value is 4: compaction keeps steady overwrites near 2.5 (docs/benchmarks.md), so 4 means it is falling behind.</value>
    public double DegradedDiskPerLive { get; set; } = 4;

    /// <summary>Gets or sets the share of the time between two checks that compaction may hold writers back before the store is degraded.</summary>
    /// <value>The default value is 0.5: writers held half the time.</value>
    public double DegradedBackPressureShare { get; set; } = 0.5;
}
