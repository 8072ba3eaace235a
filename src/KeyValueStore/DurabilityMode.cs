namespace KeyValueStore;

/// <summary>What a store promises about its data across a restart or a crash. Chosen once, with <see cref="MixedStorageKVStoreOptions.Durability"/>.</summary>
public enum DurabilityMode
{
    /// <summary>
    /// A scratch store, as Jering.KeyValueStore: nothing is recovered. The files are deleted on close when
    /// <see cref="MixedStorageKVStoreOptions.DeleteLogOnClose"/> is set. The fastest mode.
    /// </summary>
    None = 0,

    /// <summary>
    /// The store checkpoints every <see cref="MixedStorageKVStoreOptions.CheckpointIntervalMS"/> and when it is disposed,
    /// and a store opened on the same directory recovers the latest completed checkpoint. A crash loses at most the
    /// writes completed since that checkpoint; it never exposes part of one.
    /// </summary>
    Checkpoint = 1,

    /// <summary>
    /// An upsert, a delete or a batch completes only once the store's write-ahead log holds it on disk, so a crash loses
    /// no acknowledged write. Concurrent writers share each flush of the log (group commit): the more writers, the more
    /// writes per flush. Checkpoints still run every <see cref="MixedStorageKVStoreOptions.CheckpointIntervalMS"/>.
    /// </summary>
    Commit = 2,
}
