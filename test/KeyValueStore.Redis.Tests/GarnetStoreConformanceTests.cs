using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.Conformance;
using KeyValueStore.Redis.Tests.Support;

namespace KeyValueStore.Redis.Tests;

/// <summary>The shared behaviour (<see cref="StoreConformanceTests"/>) on the Redis store, against a real Garnet server.</summary>
[Collection(GarnetCollection.Name)]
public sealed class GarnetStoreConformanceTests(GarnetServerFixture garnet) : StoreConformanceTests, IAsyncDisposable
{
    private readonly List<IAsyncDisposable> _stores = [];

    protected override int MaxValueBytes => 1 << 20;

    protected override async Task<IMixedStorageKVStore<TKey, TValue>> OpenAsync<TKey, TValue>()
    {
        RedisKVStoreOptions options = garnet.StoreOptions();
        options.MaxValueBytes = MaxValueBytes;
        RedisKVStore<TKey, TValue> store = await RedisKVStore<TKey, TValue>.ConnectAsync(options);
        _stores.Add(store);
        return store;
    }

    public async ValueTask DisposeAsync()
    {
        foreach (IAsyncDisposable store in _stores)
        {
            await store.DisposeAsync();
        }
    }
}
