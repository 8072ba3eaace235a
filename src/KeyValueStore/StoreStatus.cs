using System;

namespace KeyValueStore;

/// <summary>A snapshot of a store's state: whether its disk has failed, and how its log and files stand. For health checks and dashboards.</summary>
/// <param name="IsFaulted">Whether the store's disk failed: it refuses every write and read until it is reopened (<see cref="StoreFaultedException"/>).</param>
/// <param name="Fault">What failed, when <paramref name="IsFaulted"/>; otherwise null.</param>
/// <param name="LogBytes">The hybrid log from its begin address to its tail, in memory and on disk.</param>
/// <param name="DiskBytes">The log's segment files, whole, and the emptied ones kept a while for reuse by new segments.</param>
/// <param name="LiveBytes">The compactor's estimate of the live records' bytes (the median of its last five passes' samples, or the latest when it differs from that by more than a quarter); null until a compaction pass has made one.</param>
/// <param name="BackPressure">The time compaction has held writers back since the store opened.</param>
public sealed record StoreStatus(bool IsFaulted, string? Fault, long LogBytes, long DiskBytes, long? LiveBytes, TimeSpan BackPressure)
{
    /// <summary>Gets the files' bytes over the live bytes: what compaction keeps near 2.5 under steady overwrites; null while the live bytes are not known.</summary>
    public double? DiskPerLive => LiveBytes is > 0 ? (double)DiskBytes / LiveBytes.Value : null;
}
