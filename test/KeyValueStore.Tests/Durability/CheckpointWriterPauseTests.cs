using System;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// A checkpoint holds writers only until FASTER has fixed its tail, not until its pages are on disk: they once waited
/// for the whole flush and sync, which made a checkpoint a stop-the-world pause as long as the disk was slow.
/// </summary>
public class CheckpointWriterPauseTests
{
    private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(15);

    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AWrite_WhileACheckpointsPagesAreHeldOnTheirWayToDisk_CompletesBeforeThem_AndBothSurviveAReopen(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);
        FaultInjectingDevice? segments = null;
        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            WrapDevice = (inner, role) => role == DeviceRole.HybridLog ? segments = new FaultInjectingDevice(inner) : inner,
        };

        // A hundred small records: the log stays within memory, so the later write needs no page flushed.
        await using (var store = StoreOpener.Open(settings, NullLogger.Instance))
        {
            for (int i = 0; i < 100; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1, 100));
            }

            segments!.HoldWrites();
            Task checkpoint = store.CheckpointAsync();
            try
            {
                await Eventually.TrueAsync(() => segments.HeldWrites > 0 || checkpoint.IsCompleted, () => "the checkpoint wrote no page");
                Assert.False(checkpoint.IsCompleted, "the checkpoint completed with its pages held back");

                Task write = store.UpsertAsync(Key(500), Value(500, 2, 100)).AsTask();
                Task first = await Task.WhenAny(write, Task.Delay(HangLimit));

                Assert.Same(write, first);
                await write;
                Assert.False(checkpoint.IsCompleted, "the checkpoint completed with its pages held back");
            }
            finally
            {
                segments.ReleaseWrites();
            }

            await checkpoint;
            await store.CheckpointAsync();
        }

        await using var reopened = StoreOpener.Open(StoreSettingsValidator.Validate(options), NullLogger.Instance);
        Assert.Equal(Value(500, 2, 100), await ReadAsync(reopened, 500));
        for (int i = 0; i < 100; i++)
        {
            Assert.Equal(Value(i, 1, 100), await ReadAsync(reopened, i));
        }
    }
}
