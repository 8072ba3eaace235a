namespace KeyValueStore.Benchmarks.Compaction;

/// <summary>How the store compacts during a compaction benchmark.</summary>
public enum CompactionMode
{
    /// <summary>Never: the log, and the disk, grow by one copy of the data per round.</summary>
    Off,

    /// <summary>The store's own timer, every 100 ms, with the default threshold (twice the memory size).</summary>
    Scheduled,
}
