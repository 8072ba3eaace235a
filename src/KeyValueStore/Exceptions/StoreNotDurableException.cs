namespace KeyValueStore;

/// <summary>Thrown when a checkpoint is asked of a store whose durability is <see cref="DurabilityMode.None"/>, which takes none.</summary>
/// <remarks>Nothing changes; the store stays usable.</remarks>
public sealed class StoreNotDurableException : KeyValueStoreException
{
    internal StoreNotDurableException()
        : base($"This store's {nameof(MixedStorageKVStoreOptions.Durability)} is {nameof(DurabilityMode.None)}, so it takes no checkpoints and recovers nothing. "
            + $"Create it with {nameof(DurabilityMode.Checkpoint)} or {nameof(DurabilityMode.Commit)} durability (and a {nameof(MixedStorageKVStoreOptions.LogDirectory)} of its own) to checkpoint it.")
    {
    }
}
