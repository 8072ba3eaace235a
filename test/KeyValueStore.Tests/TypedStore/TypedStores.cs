using System;
using KeyValueStore.Tests.Storage;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>Opens typed stores on real files in a test's own directory.</summary>
internal static class TypedStores
{
    /// <summary>4 KB pages and 8 KB of memory: almost every record lives on disk.</summary>
    public static MixedStorageKVStoreOptions LowMemory(string directory) => StoreFactory.LowMemory(directory);

    /// <summary>Everything in memory: 1 MB pages, 64 MB of log memory.</summary>
    public static MixedStorageKVStoreOptions InMemory(string directory) => new()
    {
        LogDirectory = directory,
        PageSizeBits = 20,
        MemorySizeBits = 26,
        SegmentSizeBits = 26,
        IndexNumBuckets = 1 << 16,
        TimeBetweenLogCompactionsMS = -1,
    };

    /// <summary>A durable store whose periodic checkpoints are an hour apart, so a test decides when they happen.</summary>
    public static MixedStorageKVStoreOptions Durable(string directory, DurabilityMode mode)
    {
        MixedStorageKVStoreOptions options = Durability.DurableStores.Options(directory, mode);
        return options;
    }

    public static MixedStorageKVStore<TKey, TValue> Open<TKey, TValue>(MixedStorageKVStoreOptions options, TimeProvider? timeProvider = null) =>
        new(options, logger: null, fasterKVStore: null, timeProvider);
}
