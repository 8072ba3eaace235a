using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Extensions.DependencyInjection.Tests.Support;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace KeyValueStore.Extensions.DependencyInjection.Tests;

/// <summary>Options from code or configuration, checked when the host starts; several stores in one host, by key.</summary>
public class RegistrationTests
{
    [Fact]
    public async Task InvalidOptions_FailTheHostsStart_ListingEveryProblem_BeforeAnyFileIsWritten()
    {
        using var temp = new TempDirectory();
        using IHost host = TestHosts.Build(new RecordingLoggerProvider(), services => services.AddMixedStorageKVStore<string, int>(options =>
        {
            TestHosts.Durable(options, temp.Path);
            options.PageSizeBits = 3;
            options.IndexNumBuckets = 1000;
        }));

        OptionsValidationException refused = await Assert.ThrowsAsync<OptionsValidationException>(() => host.StartAsync());

        Assert.Equal(2, refused.Failures.Count());
        Assert.Contains(refused.Failures, failure => failure.Contains("PageSizeBits is 3", StringComparison.Ordinal));
        Assert.Contains(refused.Failures, failure => failure.Contains("IndexNumBuckets is 1000", StringComparison.Ordinal));
        Assert.Empty(Directory.GetFileSystemEntries(temp.Path));
    }

    [Fact]
    public async Task OptionsBoundFromAConfigurationSection_ReachTheStore()
    {
        using var temp = new TempDirectory();
        IConfiguration configuration = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Stores:Sessions:LogDirectory"] = temp.Path,
            ["Stores:Sessions:LogFileNamePrefix"] = "sessions",
            ["Stores:Sessions:Durability"] = "Checkpoint",
            ["Stores:Sessions:DeleteLogOnClose"] = "false",
            ["Stores:Sessions:IndexNumBuckets"] = "4096",
            ["Stores:Sessions:PageSizeBits"] = "16",
            ["Stores:Sessions:MemorySizeBits"] = "20",
            ["Stores:Sessions:SegmentSizeBits"] = "22",
        }).Build();

        for (int run = 0; run < 2; run++)
        {
            using IHost host = TestHosts.Build(new RecordingLoggerProvider(), services => services.AddMixedStorageKVStore<string, string>(configuration.GetSection("Stores:Sessions")));
            await host.StartAsync();
            var store = host.Services.GetRequiredService<IMixedStorageKVStore<string, string>>();
            if (run == 0)
            {
                await store.UpsertAsync("user-1", "signed in");
            }
            else
            {
                Assert.Equal("signed in", (await store.ReadAsync("user-1")).Value);
            }

            await host.StopAsync();
        }

        Assert.NotEmpty(Directory.GetFiles(temp.Path, "sessions*", SearchOption.AllDirectories));
    }

    [Fact]
    public async Task KeyedStores_OfTheSameTypes_OpenTogether_AndKeepTheirDataApart()
    {
        using var users = new TempDirectory();
        using var orders = new TempDirectory();
        var logs = new RecordingLoggerProvider();
        using IHost host = TestHosts.Build(logs, services => services
            .AddKeyedMixedStorageKVStore<string, int>("users", options => TestHosts.Durable(options, users.Path))
            .AddKeyedMixedStorageKVStore<string, int>("orders", options => TestHosts.Durable(options, orders.Path)));
        await host.StartAsync();
        Assert.Equal(2, logs.Events.Count(e => e.EventId == 1 && e.Category.Contains("MixedStorageKVStore", StringComparison.Ordinal)));

        var usersStore = host.Services.GetRequiredKeyedService<IMixedStorageKVStore<string, int>>("users");
        var ordersStore = host.Services.GetRequiredKeyedService<IMixedStorageKVStore<string, int>>("orders");
        Assert.NotSame(usersStore, ordersStore);
        await usersStore.UpsertAsync("count", 7);

        Assert.Equal(7, (await usersStore.ReadAsync("count")).Value);
        Assert.False((await ordersStore.ReadAsync("count")).Found);
        Assert.Null(host.Services.GetService<IMixedStorageKVStore<string, int>>());
        await host.StopAsync();
    }

    [Fact]
    public void RegisteringAStoreTwiceUnderOneKey_IsRefused_SayingWhatToDoInstead()
    {
        var services = new ServiceCollection();
        services.AddMixedStorageKVStore<string, int>(_ => { });
        ArgumentException unkeyed = Assert.Throws<ArgumentException>(() => services.AddMixedStorageKVStore<string, int>(_ => { }));
        Assert.Contains("AddKeyedMixedStorageKVStore", unkeyed.Message, StringComparison.Ordinal);

        services.AddKeyedMixedStorageKVStore<string, int>("cache", _ => { });
        ArgumentException keyed = Assert.Throws<ArgumentException>(() => services.AddKeyedMixedStorageKVStore<string, int>("cache", _ => { }));
        Assert.Contains("'cache'", keyed.Message, StringComparison.Ordinal);

        // Stores of other types are other stores.
        services.AddMixedStorageKVStore<string, string>(_ => { });
    }
}
