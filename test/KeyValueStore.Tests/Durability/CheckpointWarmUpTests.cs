using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.IO;
using System.Threading.Tasks;
using KeyValueStore.Durability;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Durability;

public class CheckpointWarmUpTests
{
    [Fact]
    public async Task AWarmUp_CheckpointsAThrowawayStore_AndLeavesNothingBehind()
    {
        using var temp = new TempDirectory();

        Assert.True(await CheckpointWarmUp.RunAsync(temp.Path), "the throwaway store opened, took its checkpoints and closed");

        Assert.Empty(Directory.EnumerateFileSystemEntries(temp.Path));
    }

    [Fact]
    public async Task TheThrowawayStoresFirstCheckpoint_IsAnIndexCheckpointToo()
    {
        // What the warm-up is for: the first index checkpoint's start is what held writers longest.
        using var temp = new TempDirectory();
        using var meters = new OwnMeterFactory();
        StoreSettings settings = StoreOpener.ThrowawayCheckpointedStore(temp.Path, meters);
        var layout = new LogFileLayout(settings.LogDirectory, settings.LogFileNamePrefix);
        await using (FasterRecordStore store = await StoreOpener.OpenAsync(settings, NullLogger.Instance))
        {
            await store.UpsertAsync(new byte[] { 1 }, new byte[] { 2 });
            await store.CheckpointAsync();

            Assert.Equal(DurabilityMode.Checkpoint, settings.Durability);
            Assert.Single(Directory.EnumerateDirectories(IndexCheckpointRecord.RootOf(layout)));
        }
    }

    [Fact]
    public async Task AWarmUp_DeletesTheFolderOfAProcessThatIsGone_AndKeepsThatOfOneRunning()
    {
        using var temp = new TempDirectory();

        // Process ids are below 2^22 on Linux: this one cannot be running.
        string gone = Path.Combine(temp.Path, "kvstore-checkpoint-warm-up.2000000000.0123456789abcdef0123456789abcdef");
        string running = Path.Combine(temp.Path, $"kvstore-checkpoint-warm-up.{Environment.ProcessId}.0123456789abcdef0123456789abcdef");
        foreach (string folder in new[] { gone, running })
        {
            Directory.CreateDirectory(Path.Combine(folder, "checkpoints"));
            File.WriteAllBytes(Path.Combine(folder, "warm-up.log.0"), new byte[4096]);
        }

        Assert.True(await CheckpointWarmUp.RunAsync(temp.Path));

        Assert.False(Directory.Exists(gone), "the folder of a process that is gone is deleted");
        Assert.True(Directory.Exists(running), "a running process may still be warming up in its folder");
    }

    [Fact]
    public async Task AWarmUpThatCannotWrite_IsIgnored()
    {
        using var temp = new TempDirectory();
        string notADirectory = Path.Combine(temp.Path, "file");
        File.WriteAllBytes(notADirectory, [1]);

        Assert.False(await CheckpointWarmUp.RunAsync(notADirectory));
    }

    [Fact]
    public async Task AWarmUpsStore_IsNotHeard_EvenByAListenerToEveryMeterNamedLikeTheStores()
    {
        using var temp = new TempDirectory();
        var heard = new ConcurrentQueue<string>();
        using var listener = new MeterListener();

        // As an OpenTelemetry wildcard (KeyValueStore*) would: every meter whose name starts with the stores'.
        listener.InstrumentPublished = (instrument, meters) =>
        {
            if (instrument.Meter.Name.StartsWith(MixedStorageKVStore.MeterName, StringComparison.OrdinalIgnoreCase))
            {
                meters.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<double>((instrument, _, tags, _) => Note(instrument, tags, heard));
        listener.SetMeasurementEventCallback<long>((instrument, _, tags, _) => Note(instrument, tags, heard));
        listener.Start();

        Assert.True(await CheckpointWarmUp.RunAsync(temp.Path));

        listener.RecordObservableInstruments();
        Assert.DoesNotContain("warm-up", heard);
    }

    private static void Note(Instrument instrument, ReadOnlySpan<KeyValuePair<string, object?>> tags, ConcurrentQueue<string> heard)
    {
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            if (tag.Key == "kvstore.store" && tag.Value is string store)
            {
                heard.Enqueue(store);
            }
        }
    }

    private sealed class OwnMeterFactory : IMeterFactory
    {
        private readonly Meter _meter = new("CheckpointWarmUpTests");

        public Meter Create(MeterOptions options) => _meter;

        public void Dispose() => _meter.Dispose();
    }
}
