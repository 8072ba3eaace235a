namespace KeyValueStore.Storage;

/// <summary>Which of a store's files a FASTER device writes; fault-injection tests wrap devices by role.</summary>
internal enum DeviceRole
{
    /// <summary>The segment files of FASTER's hybrid log: the records themselves.</summary>
    HybridLog,

    /// <summary>The segment files of the write-ahead log of a Commit-mode store.</summary>
    WriteAheadLog,

    /// <summary>A checkpoint's files: its metadata and its index snapshot.</summary>
    Checkpoint,
}
