using System;
using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Redis.Tests.Support;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.DependencyInjection;

namespace KeyValueStore.Redis.Tests;

/// <summary>
/// The Redis store records its operations on the embedded store's instruments (<c>kvstore.operations</c>,
/// <c>kvstore.operation.duration</c> on the <c>KeyValueStore</c> meter), tagged with its key prefix, so that a service's
/// dashboards survive the move to a server. Other tests' stores share the meter, so each measurement is told apart by
/// its <c>kvstore.store</c> tag (every test store has a prefix of its own).
/// </summary>
[Collection(GarnetCollection.Name)]
public sealed class RedisStoreMetricsTests : IDisposable
{
    private readonly GarnetServerFixture _garnet;
    private readonly StoreMeterRecorder _meter = new();

    public RedisStoreMetricsTests(GarnetServerFixture garnet) => _garnet = garnet;

    public void Dispose() => _meter.Dispose();

    [Fact]
    public async Task EachOperation_IsCountedByKindAndOutcome_AndTimed_UnderItsKeyPrefix_OnAMeterClosedWithTheStore()
    {
        RedisKVStoreOptions options = _garnet.StoreOptions();
        await using (RedisKVStore<string, int> store = await RedisKVStore<string, int>.ConnectAsync(options))
        {
            await OperationMix.RunAsync(store);
        }

        OperationMix.AssertRecorded(_meter, options.KeyPrefix);
        Measured first = _meter.Of(options.KeyPrefix, "kvstore.operation.duration").First();
        Assert.True(_meter.HasClosed(first.Meter), "the store's own meter is still open after the store was disposed");
    }

    [Fact]
    public async Task AnOperationThatFails_IsCountedAsAnError()
    {
        RedisKVStoreOptions options = _garnet.StoreOptions();
        options.MaxValueBytes = 64;
        await using (RedisKVStore<string, string> store = await RedisKVStore<string, string>.ConnectAsync(options))
        {
            await Assert.ThrowsAsync<RecordTooLargeException>(async () => await store.UpsertAsync("big", new string('v', 1_000)));
        }

        Assert.Equal(1, _meter.Count(options.KeyPrefix, "upsert", "error"));
        Assert.Equal(0, _meter.Count(options.KeyPrefix, "upsert", "ok"));
    }

    [Fact]
    public async Task AStoreWithoutAPrefix_IsTaggedRedis()
    {
        RedisKVStoreOptions options = _garnet.StoreOptions();
        options.KeyPrefix = string.Empty;
        string key = $"unprefixed-{Guid.NewGuid():N}";
        await using (RedisKVStore<string, int> store = await RedisKVStore<string, int>.ConnectAsync(options))
        {
            await store.UpsertAsync(key, 1);
            await store.DeleteAsync(key);
        }

        Assert.True(_meter.Count("redis", "delete", "ok") >= 1);
    }

    [Fact]
    public async Task TheRegistration_RecordsOnAMeterFromTheHostsFactory_WhichOutlivesTheStore()
    {
        using var factory = new RecordingMeterFactory();
        RedisKVStoreOptions defaults = _garnet.StoreOptions();
        var services = new ServiceCollection()
            .AddSingleton<IMeterFactory>(factory)
            .AddRedisKVStore<string, int>(options =>
            {
                options.Configuration = defaults.Configuration;
                options.KeyPrefix = defaults.KeyPrefix;
            });

        await using (ServiceProvider provider = services.BuildServiceProvider())
        {
            await provider.GetRequiredService<IMixedStorageKVStore<string, int>>().UpsertAsync("a", 1);
        }

        Meter meter = Assert.Single(factory.Created);
        Assert.Equal(MixedStorageKVStore.MeterName, meter.Name);
        Measured counted = Assert.Single(_meter.Of(defaults.KeyPrefix, "kvstore.operations"));
        Assert.Same(meter, counted.Meter);
        Assert.False(_meter.HasClosed(meter), "the store disposed the host's meter");
    }

    [Fact]
    public async Task ValuesAtOrAboveTheCompressionThreshold_AreCountedByWhatBecameOfThem_AsOnTheEmbeddedStore()
    {
        RedisKVStoreOptions options = _garnet.StoreOptions();
        options.ValueCompressionThresholdBytes = CompressionMix.ThresholdBytes;
        await using (RedisKVStore<int, byte[]> store = await RedisKVStore<int, byte[]>.ConnectAsync(options))
        {
            await CompressionMix.RunAsync(store);
            _meter.RecordObservableInstruments();
        }

        CompressionMix.AssertRecorded(_meter, options.KeyPrefix);
    }

    [Fact]
    public async Task AClosedStore_ReportsNoCompressionCounts_OnAHostsMeterThatOutlivesIt()
    {
        using var factory = new RecordingMeterFactory();
        RedisKVStoreOptions options = _garnet.StoreOptions();
        options.MeterFactory = factory;
        options.ValueCompressionThresholdBytes = 1000;
        await using (RedisKVStore<int, byte[]> store = await RedisKVStore<int, byte[]>.ConnectAsync(options))
        {
            await store.UpsertAsync(1, new byte[2_000]);
            _meter.RecordObservableInstruments();
        }

        Assert.Single(_meter.Of(options.KeyPrefix, "kvstore.value.compression"), m => Equals(m.Tags["kvstore.compression.outcome"], "compressed") && m.Value == 1);
        _meter.Clear();
        _meter.RecordObservableInstruments();
        Assert.Empty(_meter.Of(options.KeyPrefix, "kvstore.value.compression"));
    }

    /// <summary>A host's meter factory that remembers the meters it made; they live until it is disposed, not until the store is.</summary>
    private sealed class RecordingMeterFactory : IMeterFactory
    {
        public ConcurrentBag<Meter> Created { get; } = [];

        public Meter Create(MeterOptions options)
        {
            var meter = new Meter(options);
            Created.Add(meter);
            return meter;
        }

        public void Dispose()
        {
            foreach (Meter meter in Created)
            {
                meter.Dispose();
            }
        }
    }
}
