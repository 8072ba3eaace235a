namespace KeyValueStore.LoadTest.Workloads;

/// <summary>What one operation of a workload does; latencies are kept per type.</summary>
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
}
