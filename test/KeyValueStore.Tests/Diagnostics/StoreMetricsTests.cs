using System;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Diagnostics;

/// <summary>
/// The store's instruments on the <c>KeyValueStore</c> meter, heard by a <see cref="System.Diagnostics.Metrics.MeterListener"/>: operations by kind
/// and outcome with their durations, group commits and checkpoints, and the observed state of the store. Other tests'
/// stores share the meter's name, so each measurement is told apart by its <c>kvstore.store</c> tag.
/// </summary>
public sealed class StoreMetricsTests : IDisposable
{
    private readonly StoreMeterRecorder _meter = new();

    public void Dispose() => _meter.Dispose();

    [Fact]
    public async Task EachOperation_IsCountedByKindAndOutcome_AndTimed()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Unique(StoreFactory.LowMemory(temp.Path));
        await using (var store = await MixedStorageKVStore<string, int>.OpenAsync(options))
        {
            await OperationMix.RunAsync(store);
        }

        OperationMix.AssertRecorded(_meter, options.LogFileNamePrefix!);
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

        Assert.Equal(1, _meter.Count(options.LogFileNamePrefix!, "upsert", "error"));
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
        Assert.NotEmpty(_meter.Of(name, "kvstore.commit.duration"));
        Assert.True(_meter.Of(name, "kvstore.commit.entries").Sum(m => m.Value) >= 50, $"the commits covered {_meter.Of(name, "kvstore.commit.entries").Sum(m => m.Value)} entries in {_meter.Of(name, "kvstore.commit.entries").Count()} commits");
        Assert.NotEmpty(_meter.Of(name, "kvstore.checkpoint.duration"));
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
        _meter.RecordObservableInstruments();
        Assert.True(_meter.Last(name, "kvstore.log.size") > 0);
        Assert.True(_meter.Last(name, "kvstore.disk.usage") >= _meter.Last(name, "kvstore.log.size") / 2);
        Assert.True(_meter.Last(name, "kvstore.compactions") >= 1);
        Assert.True(_meter.Last(name, "kvstore.compaction.reclaimed") >= 1 << 20, "compaction gave back no segment file");
        Assert.NotEmpty(_meter.Of(name, "kvstore.backpressure.duration"));
        Assert.NotEmpty(_meter.Of(name, "kvstore.session_pool.waits"));

        await store.DisposeAsync();
        _meter.Clear();
        _meter.RecordObservableInstruments();
        Assert.Empty(_meter.Of(name, "kvstore.log.size"));
    }

    [Fact]
    public async Task ValuesAtOrAboveTheCompressionThreshold_AreCountedByWhatBecameOfThem()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Unique(StoreFactory.LowMemory(temp.Path));
        options.ValueCompressionThresholdBytes = CompressionMix.ThresholdBytes;
        string name = options.LogFileNamePrefix!;
        await using (var store = await MixedStorageKVStore<int, byte[]>.OpenAsync(options))
        {
            await CompressionMix.RunAsync(store);
            _meter.RecordObservableInstruments();
        }

        CompressionMix.AssertRecorded(_meter, name);
    }

    /// <summary>A store name no other test's store has: tests run in parallel, and all stores share the meter's name.</summary>
    private static MixedStorageKVStoreOptions Unique(MixedStorageKVStoreOptions options)
    {
        options.LogFileNamePrefix = "metrics-" + Guid.NewGuid().ToString("N");
        return options;
    }
}
