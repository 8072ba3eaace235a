using System;
using System.Threading.Tasks;
using KeyValueStore.Extensions.DependencyInjection.Tests.Support;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace KeyValueStore.Extensions.DependencyInjection.Tests;

/// <summary>
/// A registered store opens while the host starts, serves the host's services as a singleton, and closes (with its
/// last checkpoint) while the host stops; the next host finds what the last one wrote.
/// </summary>
public class StoreLifetimeTests
{
    private const int StoreOpened = 1;
    private const int StoreClosed = 3;

    [Fact]
    public async Task TheStore_OpensAsTheHostStarts_ClosesAsItStops_AndTheNextHostReadsWhatItWrote()
    {
        using var temp = new TempDirectory();
        var logs = new RecordingLoggerProvider();
        using (IHost host = TestHosts.Build(logs, services => services.AddMixedStorageKVStore<string, int>(options => TestHosts.Durable(options, temp.Path))))
        {
            await host.StartAsync();
            Assert.True(logs.Saw(StoreOpened, "MixedStorageKVStore"), "the store was not opened while the host started");

            var store = host.Services.GetRequiredService<IMixedStorageKVStore<string, int>>();
            Assert.Same(store, host.Services.GetRequiredService<MixedStorageKVStore<string, int>>());
            await store.UpsertAsync("answer", 42);

            await host.StopAsync();
            Assert.True(logs.Saw(StoreClosed, "MixedStorageKVStore"), "the store was not closed while the host stopped");
        }

        using IHost next = TestHosts.Build(new RecordingLoggerProvider(), services => services.AddMixedStorageKVStore<string, int>(options => TestHosts.Durable(options, temp.Path)));
        await next.StartAsync();
        ReadResult<int> read = await next.Services.GetRequiredService<IMixedStorageKVStore<string, int>>().ReadAsync("answer");
        Assert.True(read.Found);
        Assert.Equal(42, read.Value);
        await next.StopAsync();
    }

    [Fact]
    public async Task AStoreThatCannotOpen_FailsTheHostsStart_WithTheStoresTypedException()
    {
        using var temp = new TempDirectory();
        using IHost first = TestHosts.Build(new RecordingLoggerProvider(), services => services.AddMixedStorageKVStore<string, int>(options => TestHosts.Durable(options, temp.Path)));
        await first.StartAsync();

        using IHost second = TestHosts.Build(new RecordingLoggerProvider(), services => services.AddMixedStorageKVStore<string, int>(options => TestHosts.Durable(options, temp.Path)));
        await Assert.ThrowsAsync<StoreLockedException>(() => second.StartAsync());

        await second.StopAsync();
        await first.StopAsync();
    }

    [Fact]
    public async Task AStoreResolvedWithoutAHost_OpensOnResolution_AndClosesWithTheProvider()
    {
        using var temp = new TempDirectory();
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddMixedStorageKVStore<string, int>(options => TestHosts.Durable(options, temp.Path));
        await using (ServiceProvider provider = services.BuildServiceProvider())
        {
            await provider.GetRequiredService<IMixedStorageKVStore<string, int>>().UpsertAsync("answer", 42);
        }

        var options = new MixedStorageKVStoreOptions();
        TestHosts.Durable(options, temp.Path);
        await using MixedStorageKVStore<string, int> reopened = await MixedStorageKVStore<string, int>.OpenAsync(options);
        Assert.Equal(42, (await reopened.ReadAsync("answer")).Value);
    }

    [Fact]
    public async Task AStoreFirstAskedForAfterTheHostStopped_IsRefusedAsDisposed()
    {
        using var temp = new TempDirectory();
        using IHost host = TestHosts.Build(new RecordingLoggerProvider(), services => services.AddMixedStorageKVStore<string, int>(options => TestHosts.Durable(options, temp.Path)));
        await host.StartAsync();
        await host.StopAsync();

        Assert.Throws<ObjectDisposedException>(() => host.Services.GetRequiredService<IMixedStorageKVStore<string, int>>());
    }
}
