using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;
using KeyValueStore.Tests.TypedStore;

namespace KeyValueStore.Tests.Conformance;

/// <summary>The shared behaviour (<see cref="StoreConformanceTests"/>) on the embedded store, everything in memory and on real files.</summary>
public sealed class EmbeddedStoreConformanceTests : StoreConformanceTests, IDisposable
{
    private const int PageSizeBits = 20;
    private readonly List<TempDirectory> _directories = [];

    protected override int MaxValueBytes => 1 << PageSizeBits;

    protected override async Task<IMixedStorageKVStore<TKey, TValue>> OpenAsync<TKey, TValue>()
    {
        var directory = new TempDirectory();
        _directories.Add(directory);
        MixedStorageKVStoreOptions options = TypedStores.InMemory(directory.Path);
        options.PageSizeBits = PageSizeBits;
        return await MixedStorageKVStore<TKey, TValue>.OpenAsync(options);
    }

    public void Dispose()
    {
        foreach (TempDirectory directory in _directories)
        {
            directory.Dispose();
        }
    }
}
