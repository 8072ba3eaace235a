using System;
using System.Threading.Tasks;
using KeyValueStore.Extensions.DependencyInjection.Caching;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Caching.Hybrid;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Time.Testing;

namespace KeyValueStore.Extensions.DependencyInjection.Tests.Caching;

/// <summary>What sets the cache apart from <c>MemoryDistributedCache</c>: its entries, and their expiries, outlive the host.</summary>
public class PersistentCacheTests
{
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task Entries_AndTheirExpiries_SurviveARestartOfTheHost(DurabilityMode durability)
    {
        using var temp = new TempDirectory();
        var time = new FakeTimeProvider(CacheHosts.Start);
        using (IHost host = CacheHosts.Build(temp.Path, time, durability: durability))
        {
            await host.StartAsync();
            var cache = host.Services.GetRequiredService<IDistributedCache>();
            await cache.SetAsync("forever", [1, 2, 3], new DistributedCacheEntryOptions());
            await cache.SetAsync("an hour", [4], new DistributedCacheEntryOptions { AbsoluteExpirationRelativeToNow = TimeSpan.FromHours(1) });
            await host.StopAsync();
        }

        using IHost restarted = CacheHosts.Build(temp.Path, time, durability: durability);
        await restarted.StartAsync();
        var reopened = restarted.Services.GetRequiredService<IDistributedCache>();
        Assert.Equal([1, 2, 3], await reopened.GetAsync("forever"));
        Assert.Equal([4], await reopened.GetAsync("an hour"));

        time.Advance(TimeSpan.FromHours(1));
        Assert.Null(await reopened.GetAsync("an hour"));
        Assert.Equal([1, 2, 3], await reopened.GetAsync("forever"));
        await restarted.StopAsync();
    }

    [Fact]
    public async Task AsHybridCachesSecondLevel_AValueOutlivesTheProcessThatMadeIt()
    {
        using var temp = new TempDirectory();
        var time = new FakeTimeProvider(CacheHosts.Start);
        using (IHost host = CacheHosts.Build(temp.Path, time, services => services.AddHybridCache()))
        {
            await host.StartAsync();
            var hybrid = host.Services.GetRequiredService<HybridCache>();
            Assert.Equal("computed once", await hybrid.GetOrCreateAsync("report", _ => ValueTask.FromResult("computed once")));
            await host.StopAsync();
        }

        // A new host has an empty first level: the value can only come from our cache's files.
        using IHost restarted = CacheHosts.Build(temp.Path, time, services => services.AddHybridCache());
        await restarted.StartAsync();
        var again = restarted.Services.GetRequiredService<HybridCache>();
        string value = await again.GetOrCreateAsync<string>("report", _ => throw new InvalidOperationException("the value was computed again"));
        Assert.Equal("computed once", value);
        await restarted.StopAsync();
    }

    [Fact]
    public async Task EntriesThatExpired_AndAreNeverReadAgain_AreDroppedByTheStoresCompaction()
    {
        const int Entries = 3_000;
        using var temp = new TempDirectory();
        var time = new FakeTimeProvider(CacheHosts.Start);
        using IHost host = CacheHosts.Build(temp.Path, time, smallPages: true);
        await host.StartAsync();
        var cache = host.Services.GetRequiredService<IDistributedCache>();
        var store = host.Services.GetRequiredKeyedService<IMixedStorageKVStore<string, byte[]>>(MixedStorageDistributedCacheServiceCollectionExtensions.StoreKey);
        byte[] value = new byte[200];
        for (int i = 0; i < Entries; i++)
        {
            var expiry = i % 2 == 0 ? new DistributedCacheEntryOptions { AbsoluteExpirationRelativeToNow = TimeSpan.FromMinutes(1) } : new DistributedCacheEntryOptions();
            await cache.SetAsync($"entry-{i}", value, expiry);
        }

        time.Advance(TimeSpan.FromMinutes(2));
        await store.CompactAsync();

        int expiredLeft = 0;
        for (int i = 0; i < Entries; i++)
        {
            bool inStore = (await store.ReadAsync($"entry-{i}")).Found;
            Assert.True(inStore || i % 2 == 0, $"entry-{i}, which never expires, was dropped");
            expiredLeft += inStore && i % 2 == 0 ? 1 : 0;
        }

        // Compaction reaches the log below its in-memory pages: all but the newest entries.
        Assert.True(expiredLeft < Entries / 8, $"{expiredLeft} of {Entries / 2} expired entries are still in the store after compaction");
        await host.StopAsync();
    }

    [Fact]
    public async Task AStoreWrittenByOtherCode_IsRefusedByKey_WithATypedError()
    {
        using var temp = new TempDirectory();
        var time = new FakeTimeProvider(CacheHosts.Start);
        using IHost host = CacheHosts.Build(temp.Path, time);
        await host.StartAsync();
        var store = host.Services.GetRequiredKeyedService<IMixedStorageKVStore<string, byte[]>>(MixedStorageDistributedCacheServiceCollectionExtensions.StoreKey);
        await store.UpsertAsync("not-an-entry", [7, 7]);

        CacheEntryFormatException refused = await Assert.ThrowsAsync<CacheEntryFormatException>(() => host.Services.GetRequiredService<IDistributedCache>().GetAsync("not-an-entry"));

        Assert.Equal("not-an-entry", refused.Key);
        await host.StopAsync();
    }
}
