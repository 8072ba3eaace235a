using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Diagnostics;

/// <summary>
/// The store's instruments on the <c>KeyValueStore</c> meter, heard by a <see cref="MeterListener"/>: operations by kind
/// and outcome with their durations, group commits and checkpoints, and the observed state of the store. Other tests'
/// stores share the meter's name, so each measurement is told apart by its <c>kvstore.store</c> tag.
/// </summary>
public sealed class StoreMetricsTests : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly ConcurrentQueue<(string Instrument, double Value, Dictionary<string, object?> Tags)> _measurements = new();

    public StoreMetricsTests()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == MixedStorageKVStore.MeterName)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.Start();
    }

    public void Dispose() => _listener.Dispose();

    [Fact]
    public async Task EachOperation_IsCountedByKindAndOutcome_AndTimed()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Unique(StoreFactory.LowMemory(temp.Path));
        await using (var store = await MixedStorageKVStore<string, int>.OpenAsync(options))
        {
            await store.UpsertAsync("a", 1);
            await store.UpsertAsync("b", 2);
            await store.ReadAsync("a");
            await store.ReadAsync("missing");
            await store.DeleteAsync("b");
            await store.DeleteAsync("missing");
            await store.ApplyBatchAsync(new WriteBatch<string, int>().Upsert("c", 3));
            await store.ReadManyAsync(["a", "c"]);
        }

        string name = options.LogFileNamePrefix!;
        Assert.Equal(2, Count(name, "upsert", "ok"));
        Assert.Equal(1, Count(name, "read", "ok"));
        Assert.Equal(1, Count(name, "read", "not_found"));
        Assert.Equal(1, Count(name, "delete", "ok"));
        Assert.Equal(1, Count(name, "delete", "not_found"));
        Assert.Equal(1, Count(name, "batch", "ok"));
        Assert.Equal(1, Count(name, "read_many", "ok"));
        var durations = Of(name, "kvstore.operation.duration").ToList();
        Assert.Equal(8, durations.Count);
        Assert.All(durations, d => Assert.True(d.Value > 0 && d.Value < 60, $"a duration of {d.Value} s"));
    }

    [Fact]
    public async Task AnOperationThatFails_IsCountedAsAnError()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Unique(StoreFactory.LowMemory(temp.Path));
        await using (var store = await MixedStorageKVStore<string, byte[]>.OpenAsync(options))
        {
            await Assert.ThrowsAsync<RecordTooLargeException>(async () => await store.UpsertAsync("big", new byte[1 << 20]));
        }

        Assert.Equal(1, Count(options.LogFileNamePrefix!, "upsert", "error"));
    }

    [Fact]
    public async Task GroupCommitsAndCheckpoints_AreTimed_AndTheWritesACommitCoveredCounted()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Unique(Durability.DurableStores.Options(temp.Path, DurabilityMode.Commit));
        await using (var store = await MixedStorageKVStore<int, int>.OpenAsync(options))
        {
            await Task.WhenAll(Enumerable.Range(0, 50).Select(i => store.UpsertAsync(i, i).AsTask()));
            await store.CheckpointAsync();
        }

        string name = options.LogFileNamePrefix!;
        Assert.NotEmpty(Of(name, "kvstore.commit.duration"));
        Assert.True(Of(name, "kvstore.commit.entries").Sum(m => m.Value) >= 50, $"the commits covered {Of(name, "kvstore.commit.entries").Sum(m => m.Value)} entries in {Of(name, "kvstore.commit.entries").Count()} commits");
        Assert.NotEmpty(Of(name, "kvstore.checkpoint.duration"));
    }

    [Fact]
    public async Task TheStoresState_IsObservedWhileItIsOpen_AndNotAfterItCloses()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Unique(StoreFactory.LowMemory(temp.Path));
        string name = options.LogFileNamePrefix!;
        var store = await MixedStorageKVStore<int, string>.OpenAsync(options);
        // About 3 MB of overwrites of 500 keys: compaction then empties whole 1 MB segment files.
        for (int i = 0; i < 24_000; i++)
        {
            await store.UpsertAsync(i % 500, new string('x', 100));
        }

        await store.CompactAsync();
        _listener.RecordObservableInstruments();
        Assert.True(Last(name, "kvstore.log.size") > 0);
        Assert.True(Last(name, "kvstore.disk.usage") >= Last(name, "kvstore.log.size") / 2);
        Assert.True(Last(name, "kvstore.compactions") >= 1);
        Assert.True(Last(name, "kvstore.compaction.reclaimed") >= 1 << 20, "compaction gave back no segment file");
        Assert.NotEmpty(Of(name, "kvstore.backpressure.duration"));
        Assert.NotEmpty(Of(name, "kvstore.session_pool.waits"));

        await store.DisposeAsync();
        _measurements.Clear();
        _listener.RecordObservableInstruments();
        Assert.Empty(Of(name, "kvstore.log.size"));
    }

    /// <summary>A store name no other test's store has: tests run in parallel, and all stores share the meter's name.</summary>
    private static MixedStorageKVStoreOptions Unique(MixedStorageKVStoreOptions options)
    {
        options.LogFileNamePrefix = "metrics-" + Guid.NewGuid().ToString("N");
        return options;
    }

    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags) =>
        _measurements.Enqueue((instrument.Name, value, tags.ToArray().ToDictionary(t => t.Key, t => t.Value)));

    private IEnumerable<(string Instrument, double Value, Dictionary<string, object?> Tags)> Of(string store, string instrument) =>
        _measurements.Where(m => m.Instrument == instrument && Equals(m.Tags.GetValueOrDefault("kvstore.store"), store));

    private double Last(string store, string instrument) => Of(store, instrument).Last().Value;

    private long Count(string store, string operation, string outcome) =>
        (long)Of(store, "kvstore.operations")
            .Where(m => Equals(m.Tags["kvstore.operation"], operation) && Equals(m.Tags["kvstore.outcome"], outcome))
            .Sum(m => m.Value);
}
