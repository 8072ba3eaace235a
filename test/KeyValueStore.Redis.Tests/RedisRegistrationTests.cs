using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.Redis.Tests.Support;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using StackExchange.Redis;

namespace KeyValueStore.Redis.Tests;

/// <summary><c>AddRedisKVStore</c>: a service moves from the embedded store to a server by changing its registration only.</summary>
[Collection(GarnetCollection.Name)]
public sealed class RedisRegistrationTests(GarnetServerFixture garnet)
{
    [Fact]
    public async Task AddRedisKVStore_FromConfiguration_GivesTheInterface_OverItsOwnConnection_ClosedWithTheContainer()
    {
        IConfiguration configuration = new ConfigurationBuilder()
            .AddInMemoryCollection(new Dictionary<string, string?>
            {
                ["Store:Configuration"] = garnet.Server.Configuration,
                ["Store:KeyPrefix"] = $"di-{Guid.NewGuid():N}:",
                ["Store:MaxUpdateAttempts"] = "5",
            })
            .Build();
        var services = new ServiceCollection().AddRedisKVStore<string, int>(configuration.GetSection("Store"));
        IConnectionMultiplexer connection;

        await using (ServiceProvider provider = services.BuildServiceProvider())
        {
            IMixedStorageKVStore<string, int> store = provider.GetRequiredService<IMixedStorageKVStore<string, int>>();
            Assert.Same(provider.GetRequiredService<RedisKVStore<string, int>>(), store);
            await store.UpsertAsync("a", 1);
            Assert.Equal(1, (await store.ReadAsync("a")).Value);
            connection = ((RedisKVStore<string, int>)store).Connection;
            Assert.True(connection.IsConnected);
        }

        Assert.False(connection.IsConnected);
    }

    [Fact]
    public async Task AddRedisKVStore_UsesTheApplicationsConnection_WhenOneIsRegistered_AndLeavesItOpen()
    {
        await using ConnectionMultiplexer shared = await ConnectionMultiplexer.ConnectAsync(garnet.Server.Configuration);
        var services = new ServiceCollection()
            .AddSingleton<IConnectionMultiplexer>(shared)
            .AddRedisKVStore<int, string>(options => options.KeyPrefix = $"di-{Guid.NewGuid():N}:")
            .AddKeyedRedisKVStore<int, string>("archive", options => options.KeyPrefix = $"di-{Guid.NewGuid():N}:");

        await using (ServiceProvider provider = services.BuildServiceProvider())
        {
            var store = provider.GetRequiredService<RedisKVStore<int, string>>();
            var archive = provider.GetRequiredKeyedService<IMixedStorageKVStore<int, string>>("archive");
            Assert.Same(shared, store.Connection);
            await store.UpsertAsync(1, "current");
            await archive.UpsertAsync(1, "archived");
            Assert.Equal("current", (await store.ReadAsync(1)).Value);
            Assert.Equal("archived", (await archive.ReadAsync(1)).Value);
        }

        // The container disposed both stores, but not the connection the application gave it.
        Assert.True(shared.IsConnected);
    }

    [Fact]
    public void ASecondRegistration_OfOneStore_IsRefused_AndInvalidOptions_AreReportedOnResolution()
    {
        var services = new ServiceCollection().AddRedisKVStore<int, int>(options => options.Configuration = null);

        ArgumentException twice = Assert.Throws<ArgumentException>(() => services.AddRedisKVStore<int, int>(_ => { }));
        Assert.Contains("already registered", twice.Message, StringComparison.Ordinal);
        using ServiceProvider provider = services.BuildServiceProvider();
        InvalidStoreOptionsException invalid = Assert.Throws<InvalidStoreOptionsException>(() => provider.GetRequiredService<IMixedStorageKVStore<int, int>>());
        Assert.Contains(invalid.Problems, problem => problem.StartsWith("Configuration is empty", StringComparison.Ordinal));
    }
}
