using System;

namespace KeyValueStore.Storage;

/// <summary>
/// The validated, immutable form of <see cref="MixedStorageKVStoreOptions"/> the engine runs with.
/// Directory and prefix are resolved: never null here.
/// </summary>
internal sealed record StoreSettings(
    long IndexNumBuckets,
    int PageSizeBits,
    int MemorySizeBits,
    int SegmentSizeBits,
    string LogDirectory,
    string LogFileNamePrefix,
    bool DeleteLogOnClose,
    int SessionPoolSize,
    TimeSpan? TimeBetweenLogCompactions,
    long InitialLogCompactionThresholdBytes,
    DurabilityMode Durability = DurabilityMode.None,
    TimeSpan CheckpointInterval = default,
    bool ValueChecksums = false)
{
    public bool IsDurable => Durability != DurabilityMode.None;

    /// <summary>
    /// Wraps the device of the write-ahead log when it is opened; null in every store a user opens. Fault-injection
    /// tests use it to make the log's writes fail the way a failing or full disk would.
    /// </summary>
    public Func<FASTER.core.IDevice, FASTER.core.IDevice>? WrapWriteAheadLogDevice { get; init; }

    public long PageSizeBytes => 1L << PageSizeBits;
}
