using System;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Time.Testing;

namespace KeyValueStore.Extensions.DependencyInjection.Tests.Caching;

/// <summary>
/// The <see cref="IDistributedCache"/> contract, as Microsoft's own caches are tested: get, set, remove and refresh,
/// each kind of expiry on a clock the test moves, values from 0 bytes to 1 MB.
/// </summary>
public sealed class DistributedCacheContractTests : IAsyncLifetime
{
    private readonly TempDirectory _temp = new();
    private readonly FakeTimeProvider _time = new(CacheHosts.Start);
    private IHost _host = null!;
    private IDistributedCache _cache = null!;

    public async Task InitializeAsync()
    {
        _host = CacheHosts.Build(_temp.Path, _time);
        await _host.StartAsync();
        _cache = _host.Services.GetRequiredService<IDistributedCache>();
    }

    public async Task DisposeAsync()
    {
        await _host.StopAsync();
        _host.Dispose();
        _temp.Dispose();
    }

    [Fact]
    public async Task AKeyNeverSet_ReadsAsNull()
    {
        Assert.Null(await _cache.GetAsync("missing"));
        Assert.Null(_cache.Get("missing"));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(1_000)]
    [InlineData(65_536)]
    [InlineData(1 << 20)]
    public async Task AValueSet_ReadsBackByteForByte(int size)
    {
        byte[] value = new byte[size];
        new Random(size).NextBytes(value);

        await _cache.SetAsync("key", value, new DistributedCacheEntryOptions());

        Assert.Equal(value, await _cache.GetAsync("key"));
    }

    [Fact]
    public async Task SettingAgain_Replaces_AndAReturnedArrayIsTheCallersToChange()
    {
        await _cache.SetAsync("key", [1, 2, 3], new DistributedCacheEntryOptions());
        _cache.Set("key", [4, 5], new DistributedCacheEntryOptions());

        byte[] first = (await _cache.GetAsync("key"))!;
        first[0] = 99;
        Assert.Equal([4, 5], await _cache.GetAsync("key"));
    }

    [Fact]
    public async Task Remove_DeletesTheEntry_AndRemovingAMissingKeyIsNoError()
    {
        await _cache.SetAsync("key", [1], new DistributedCacheEntryOptions());

        await _cache.RemoveAsync("key");
        _cache.Remove("never-set");

        Assert.Null(await _cache.GetAsync("key"));
    }

    [Fact]
    public async Task AnAbsoluteExpiry_EndsTheEntryAtThatMoment_AndTheExpiredRecordIsDeleted()
    {
        await _cache.SetAsync("key", [1], new DistributedCacheEntryOptions { AbsoluteExpiration = CacheHosts.Start.AddSeconds(10) });

        _time.Advance(TimeSpan.FromSeconds(9.999));
        Assert.Equal([1], await _cache.GetAsync("key"));
        _time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.Null(await _cache.GetAsync("key"));

        var store = _host.Services.GetRequiredKeyedService<IMixedStorageKVStore<string, byte[]>>(MixedStorageDistributedCacheServiceCollectionExtensions.StoreKey);
        Assert.False((await store.ReadAsync("key")).Found, "the expired entry's record was left in the store");
    }

    [Fact]
    public async Task ARelativeExpiry_CountsFromTheSet()
    {
        _time.Advance(TimeSpan.FromMinutes(5));
        await _cache.SetAsync("key", [1], new DistributedCacheEntryOptions { AbsoluteExpirationRelativeToNow = TimeSpan.FromSeconds(10) });

        _time.Advance(TimeSpan.FromSeconds(9));
        Assert.NotNull(await _cache.GetAsync("key"));
        _time.Advance(TimeSpan.FromSeconds(1));
        Assert.Null(await _cache.GetAsync("key"));
    }

    [Fact]
    public async Task ASlidingExpiry_MovesWithEachRead()
    {
        await _cache.SetAsync("key", [1], new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromSeconds(10) });

        _time.Advance(TimeSpan.FromSeconds(8));
        Assert.NotNull(await _cache.GetAsync("key"));
        _time.Advance(TimeSpan.FromSeconds(8));
        Assert.NotNull(_cache.Get("key"));
        _time.Advance(TimeSpan.FromSeconds(10));
        Assert.Null(await _cache.GetAsync("key"));
    }

    [Fact]
    public async Task ASlidingExpiry_NeverOutlivesTheAbsoluteOne()
    {
        await _cache.SetAsync("key", [1], new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromSeconds(10), AbsoluteExpirationRelativeToNow = TimeSpan.FromSeconds(15) });

        _time.Advance(TimeSpan.FromSeconds(8));
        Assert.NotNull(await _cache.GetAsync("key"));
        _time.Advance(TimeSpan.FromSeconds(7));
        Assert.Null(await _cache.GetAsync("key"));
    }

    [Fact]
    public async Task Refresh_MovesASlidingExpiry_WithoutReadingTheValue_AndIsNoErrorForAMissingKey()
    {
        await _cache.SetAsync("key", [1], new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromSeconds(10) });

        _time.Advance(TimeSpan.FromSeconds(8));
        await _cache.RefreshAsync("key");
        _time.Advance(TimeSpan.FromSeconds(8));
        _cache.Refresh("key");
        _time.Advance(TimeSpan.FromSeconds(8));
        await _cache.RefreshAsync("never-set");

        Assert.NotNull(await _cache.GetAsync("key"));
    }

    [Fact]
    public async Task AnEntryWithNoExpiry_StaysForAsLongAsItIsNotRemoved()
    {
        await _cache.SetAsync("key", [1], new DistributedCacheEntryOptions());

        _time.Advance(TimeSpan.FromDays(3650));

        Assert.Equal([1], await _cache.GetAsync("key"));
    }

    [Fact]
    public async Task ExpiriesThatAreNotInTheFuture_AreRefusedAsArgumentErrors_AndNothingIsWritten()
    {
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => _cache.SetAsync("key", [1], new DistributedCacheEntryOptions { AbsoluteExpiration = CacheHosts.Start }));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => _cache.SetAsync("key", [1], new DistributedCacheEntryOptions { AbsoluteExpirationRelativeToNow = TimeSpan.Zero }));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => _cache.SetAsync("key", [1], new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromSeconds(-1) }));

        Assert.Null(await _cache.GetAsync("key"));
    }

    [Fact]
    public async Task ConcurrentCallers_OfOverlappingKeys_ReadOnlyValuesSetForThoseKeys()
    {
        const int Keys = 32;
        var sliding = new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromMinutes(1) };
        await Task.WhenAll(Enumerable.Range(0, 8).Select(worker => Task.Run(async () =>
        {
            var random = new Random(worker);
            for (int i = 0; i < 400; i++)
            {
                int key = random.Next(Keys);
                switch (random.Next(4))
                {
                    case 0:
                    case 1:
                        await _cache.SetAsync($"k{key}", [(byte)key, (byte)worker, (byte)i, (byte)(i >> 8)], sliding);
                        break;
                    case 2:
                        byte[]? value = await _cache.GetAsync($"k{key}");
                        Assert.True(value is null || (value.Length == 4 && value[0] == key), $"k{key} read a value set for another key");
                        break;
                    default:
                        await _cache.RemoveAsync($"k{key}");
                        break;
                }
            }
        })));

        for (int key = 0; key < Keys; key++)
        {
            byte[]? value = await _cache.GetAsync($"k{key}");
            Assert.True(value is null || value[0] == key);
        }
    }
}
