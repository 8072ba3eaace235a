namespace KeyValueStore.LoadTest.Workloads;

/// <summary>What one operation of a workload does, or a batch of them; latencies are kept per type.</summary>
internal enum OperationType
{
    /// <summary>Read an existing key.</summary>
    Read,

    /// <summary>Overwrite an existing key with a new version.</summary>
    Update,

    /// <summary>Write a key beyond every key written so far (workload D).</summary>
    Insert,

    /// <summary>Read a key, then write a new version of it (workload F); timed as one operation.</summary>
    ReadModifyWrite,

    /// <summary>
    /// An atomic batch of --batch-size updates and inserts, timed as one operation. Not in any workload's mix:
    /// its writes are drawn, and counted, as updates and inserts.
    /// </summary>
    Batch,
}
