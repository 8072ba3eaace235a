using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Redis.Tests.Support;
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
    private readonly MeterListener _listener = new();
    private readonly ConcurrentQueue<Measured> _measurements = new();
    private readonly ConcurrentBag<Meter> _closedMeters = [];

    public RedisStoreMetricsTests(GarnetServerFixture garnet)
    {
        _garnet = garnet;
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == MixedStorageKVStore.MeterName)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.MeasurementsCompleted = (instrument, _) => _closedMeters.Add(instrument.Meter);
        _listener.Start();
    }

    public void Dispose() => _listener.Dispose();

    [Fact]
    public async Task EachOperation_IsCountedByKindAndOutcome_AndTimed_UnderItsKeyPrefix_OnAMeterClosedWithTheStore()
    {
        RedisKVStoreOptions options = _garnet.StoreOptions();
        await using (RedisKVStore<string, int> store = await RedisKVStore<string, int>.ConnectAsync(options))
        {
            await store.UpsertAsync("a", 1);
            await store.UpsertAsync("b", 2);
            await store.ReadAsync("a");
            await store.ReadAsync("missing");
            await store.DeleteAsync("b");
            await store.DeleteAsync("missing");
            await store.ApplyBatchAsync(new WriteBatch<string, int>().Upsert("c", 3));
            await store.ReadManyAsync(["a", "c"]);
            await store.UpdateManyAsync(["a"], (current, batch) => batch.Upsert("a", current[0].Value + 1));
        }

        string name = options.KeyPrefix;
        Assert.Equal(2, Count(name, "upsert", "ok"));
        Assert.Equal(1, Count(name, "read", "ok"));
        Assert.Equal(1, Count(name, "read", "not_found"));
        Assert.Equal(1, Count(name, "delete", "ok"));
        Assert.Equal(1, Count(name, "delete", "not_found"));
        Assert.Equal(1, Count(name, "batch", "ok"));
        Assert.Equal(1, Count(name, "read_many", "ok"));
        Assert.Equal(1, Count(name, "update_many", "ok"));
        List<Measured> durations = Of(name, "kvstore.operation.duration").ToList();
        Assert.Equal(9, durations.Count);
        Assert.All(durations, d => Assert.True(d.Value > 0 && d.Value < 60, $"a duration of {d.Value} s"));
        Assert.Contains(durations[0].Meter, _closedMeters);
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

        Assert.Equal(1, Count(options.KeyPrefix, "upsert", "error"));
        Assert.Equal(0, Count(options.KeyPrefix, "upsert", "ok"));
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

        Assert.True(Count("redis", "delete", "ok") >= 1);
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
        Measured counted = Assert.Single(Of(defaults.KeyPrefix, "kvstore.operations"));
        Assert.Same(meter, counted.Meter);
        Assert.DoesNotContain(meter, _closedMeters);
    }

    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags) =>
        _measurements.Enqueue(new Measured(instrument.Meter, instrument.Name, value, tags.ToArray().ToDictionary(tag => tag.Key, tag => tag.Value)));

    private IEnumerable<Measured> Of(string store, string instrument) =>
        _measurements.Where(m => m.Instrument == instrument && Equals(m.Tags.GetValueOrDefault("kvstore.store"), store));

    private long Count(string store, string operation, string outcome) =>
        (long)Of(store, "kvstore.operations")
            .Where(m => Equals(m.Tags["kvstore.operation"], operation) && Equals(m.Tags["kvstore.outcome"], outcome))
            .Sum(m => m.Value);

    private sealed record Measured(Meter Meter, string Instrument, double Value, Dictionary<string, object?> Tags);

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
