using System;

namespace KeyValueStore.Storage;

/// <summary>
/// The validated, immutable form of <see cref="MixedStorageKVStoreOptions"/> the engine runs with.
/// Directory and prefix are resolved: never null here. <see cref="WriteAheadLogDirectory"/> is a full path, or null for the
/// store's own directory.
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
    bool ValueChecksums = false,
    long LogDiskBudgetBytes = 0,
    string? WriteAheadLogDirectory = null)
{
    public bool IsDurable => Durability != DurabilityMode.None;

    /// <summary>
    /// Wraps each device the store opens (hybrid log, write-ahead log, checkpoint files); null in every store a user
    /// opens. Fault-injection tests use it to make writes fail, or vanish, the way a failing disk or a power cut would.
    /// </summary>
    public Func<FASTER.core.IDevice, DeviceRole, FASTER.core.IDevice>? WrapDevice { get; init; }

    /// <summary>
    /// Wraps the write-ahead log's commit file as FASTER sees it (its <see cref="FASTER.core.ILogCommitManager"/>); null
    /// in every store a user opens. Fault-injection tests use it to make the file's writes fail.
    /// </summary>
    public Func<FASTER.core.ILogCommitManager, FASTER.core.ILogCommitManager>? WrapWriteAheadLogCommits { get; init; }

    /// <summary>
    /// Called with the key of each record an upsert creates, after FASTER has allocated and filled the record and before it
    /// links the record into its hash index; null in every store a user opens. Tests use it to hold a write in that window.
    /// </summary>
    public Action<byte[]>? BeforeNewRecordLinked { get; init; }

    /// <summary>
    /// Called by compaction's copy workers and scan between records in a slice with time to spare, to let waiting
    /// foreground operations run first (<see cref="Concurrency.GiveWay"/>); tests give one that counts the calls.
    /// </summary>
    public Action CompactionGiveWay { get; init; } = Concurrency.GiveWay.ToWaitingThreads;

    /// <summary>Flushes directories after the store creates or renames files in them; tests give one that watches the calls.</summary>
    public DirectoryDurability Directories { get; init; } = DirectoryDurability.FileSystem;

    /// <summary>
    /// The least log an open would replay that makes a checkpoint take an index checkpoint first (Durability/IndexCheckpoints):
    /// four times the hash table FASTER writes for one (64 bytes a bucket). Tests lower it to take index checkpoints of small stores.
    /// </summary>
    public long MinReplayBytesForIndexCheckpoint { get; init; } = 4 * 64 * IndexNumBuckets;

    /// <summary>
    /// Says of a live record's value (as its writer gave it, without the checksum) whether compaction drops it rather
    /// than copying it (<see cref="KeyValueStore.Engine.CompactionDropRule"/>); null to copy every live record. The typed store sets it
    /// from the filter a caller opens it with.
    /// </summary>
    public StoredValueFilter? DropOnCompaction { get; init; }

    /// <summary>The factory of the store's meter, or null for a meter of its own (<see cref="MixedStorageKVStoreOptions.MeterFactory"/>).</summary>
    public System.Diagnostics.Metrics.IMeterFactory? MeterFactory { get; init; }

    /// <summary>How many log bytes per live byte start a compaction pass (the options' <c>CompactionLogToLiveRatio</c>).</summary>
    public double CompactionLogToLiveRatio { get; init; } = MixedStorageKVStoreOptions.DefaultCompactionLogToLiveRatio;

    /// <summary>FASTER's <c>MutableFraction</c>: how much of the in-memory log is updated in place (the options' <c>LogMutableFraction</c>, resolved).</summary>
    public required double LogMutableFraction { get; init; }

    public long PageSizeBytes => 1L << PageSizeBits;
}

/// <summary>Says something of a stored value, given as its writer gave it.</summary>
internal delegate bool StoredValueFilter(ReadOnlySpan<byte> value);
