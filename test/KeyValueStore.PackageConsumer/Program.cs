using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading.Tasks;
using KeyValueStore;
using MessagePack;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.DependencyInjection;

namespace KeyValueStore.PackageConsumer;

/// <summary>A value type a user would store: a MessagePack object with keyed members.</summary>
[MessagePackObject]
public sealed record Order
{
    /// <summary>Gets the customer's name.</summary>
    [Key(0)]
    public string Customer { get; init; } = string.Empty;

    /// <summary>Gets how many items were ordered.</summary>
    [Key(1)]
    public int Quantity { get; init; }

    /// <summary>Gets the price of one item.</summary>
    [Key(2)]
    public decimal UnitPrice { get; init; }
}

/// <summary>
/// Opens a checkpointed store from the package, writes, reads back, closes, reopens and reads again; then, through
/// the hosting add-on's package, a distributed cache over a checkpointed store, before and after its container is
/// disposed; and the Redis package's store, which reports a server it cannot reach. Exits 0 when every read matches what was written, 1 otherwise.
/// </summary>
public static class Program
{
    private static readonly Dictionary<string, Order> Expected = new()
    {
        ["order-1"] = new Order { Customer = "Ada", Quantity = 3, UnitPrice = 9.99m },
        ["order-2"] = new Order { Customer = "Grace", Quantity = 1, UnitPrice = 120m },
        ["order-3"] = new Order { Customer = "Edsger", Quantity = 42, UnitPrice = 0.5m },
    };

    public static async Task<int> Main()
    {
        string directory = Path.Combine(Path.GetTempPath(), "kvs-package-consumer-" + Guid.NewGuid().ToString("N"));
        Console.WriteLine($"KeyValueStore package consumer on {RuntimeInformation.FrameworkDescription}, " +
                          $"library {typeof(MixedStorageKVStore<,>).Assembly.Location}");
        int failures = 0;
        try
        {
            var options = new MixedStorageKVStoreOptions
            {
                LogDirectory = directory,
                Durability = DurabilityMode.Checkpoint,
                // The default (true) suits a cache; a checkpointed store keeps its files to reopen them.
                DeleteLogOnClose = false,
            };

            await using (MixedStorageKVStore<string, Order> store = await MixedStorageKVStore<string, Order>.OpenAsync(options))
            {
                foreach (KeyValuePair<string, Order> entry in Expected)
                {
                    await store.UpsertAsync(entry.Key, entry.Value);
                }

                failures += await CheckAsync(store, "after upsert");
            }

            // Disposing a checkpointed store takes its last checkpoint; a new instance recovers from it.
            await using (MixedStorageKVStore<string, Order> reopened = await MixedStorageKVStore<string, Order>.OpenAsync(options))
            {
                failures += await CheckAsync(reopened, "after reopen");
            }

            failures += await CheckDistributedCacheAsync(Path.Combine(directory, "cache"));
            failures += await CheckRedisStoreAsync();
        }
        catch (Exception exception)
        {
            Console.WriteLine($"package consumer: FAILED with {exception}");
            return 1;
        }
        finally
        {
            if (Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }
        }

        Console.WriteLine(failures == 0 ? "package consumer: all reads match" : $"package consumer: {failures} mismatches");
        return failures == 0 ? 0 : 1;
    }

    /// <summary>The add-on's persistent IDistributedCache, registered and resolved as a service would, across two containers.</summary>
    private static async Task<int> CheckDistributedCacheAsync(string directory)
    {
        byte[] value = [1, 2, 3];
        int failures = 0;
        for (int container = 0; container < 2; container++)
        {
            var services = new ServiceCollection();
            services.AddMixedStorageDistributedCache(options =>
            {
                options.LogDirectory = directory;
                options.Durability = DurabilityMode.Checkpoint;
                options.DeleteLogOnClose = false;
            });
            await using ServiceProvider provider = services.BuildServiceProvider();
            var cache = provider.GetRequiredService<IDistributedCache>();
            if (container == 0)
            {
                await cache.SetAsync("greeting", value, new DistributedCacheEntryOptions { SlidingExpiration = TimeSpan.FromHours(1) });
            }

            byte[]? read = await cache.GetAsync("greeting");
            bool ok = read is not null && read.AsSpan().SequenceEqual(value);
            Console.WriteLine($"  distributed cache, container {container + 1}: greeting -> {(read is null ? "not found" : string.Join(",", read))} {(ok ? "ok" : "MISMATCH")}");
            failures += ok ? 0 : 1;
        }

        return failures;
    }

    /// <summary>
    /// The Redis package, registered as a service would: with no server to reach (port 1 on loopback), a read reports it
    /// with the package's typed exception within the configured timeouts, not a hang nor StackExchange.Redis' own.
    /// </summary>
    private static async Task<int> CheckRedisStoreAsync()
    {
        var services = new ServiceCollection();
        services.AddRedisKVStore<string, Order>(options => options.Configuration = "127.0.0.1:1,abortConnect=false,connectTimeout=500,asyncTimeout=500");
        await using ServiceProvider provider = services.BuildServiceProvider();
        var store = provider.GetRequiredService<IMixedStorageKVStore<string, Order>>();
        try
        {
            await store.ReadAsync("order-1");
            Console.WriteLine("  redis store without a server: read returned, MISMATCH, expected StoreUnavailableException");
            return 1;
        }
        catch (KeyValueStore.Redis.StoreUnavailableException unavailable)
        {
            Console.WriteLine($"  redis store without a server: {unavailable.GetType().Name} ({unavailable.Operation}) ok");
            return 0;
        }
    }

    private static async Task<int> CheckAsync(MixedStorageKVStore<string, Order> store, string stage)
    {
        int failures = 0;
        foreach (KeyValuePair<string, Order> entry in Expected)
        {
            ReadResult<Order> result = await store.ReadAsync(entry.Key);
            bool ok = result.Found && entry.Value.Equals(result.Value);
            Console.WriteLine($"  {stage}: {entry.Key} -> {(result.Found ? result.Value!.ToString() : "not found")} {(ok ? "ok" : "MISMATCH, expected " + entry.Value)}");
            failures += ok ? 0 : 1;
        }

        ReadResult<Order> missing = await store.ReadAsync("never-written");
        Console.WriteLine($"  {stage}: never-written -> {missing.Status} {(missing.Found ? "MISMATCH, expected NotFound" : "ok")}");
        return failures + (missing.Found ? 1 : 0);
    }
}
