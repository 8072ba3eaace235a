using System;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Storage;

/// <summary>
/// A read that waits for the disk while a compaction copies the record it is fetching to the log's tail and moves the
/// log's begin address past the old copy. FASTER 2.6.5 then reports the key as not found (its pending read gives up on
/// an address below the begin address); the crash soak caught it as a key that vanished for one read. The compaction
/// here runs past the first segment, so the read reaches the disk only after the file it was reading is deleted.
/// </summary>
public class ReadDuringCompactionTests
{
    [Theory]
    [InlineData(DurabilityMode.None)]
    [InlineData(DurabilityMode.Checkpoint)]
    public async Task AReadWaitingForTheDisk_WhileCompactionMovesTheLogsBegin_ReturnsTheCopiedRecord(DurabilityMode durability)
    {
        using var temp = new TempDirectory();
        FaultInjectingDevice? device = null;
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(temp.Path);
        options.Durability = durability;
        options.DeleteLogOnClose = durability == DurabilityMode.None;
        options.CheckpointIntervalMS = 3_600_000;
        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            WrapDevice = (inner, role) => role == DeviceRole.HybridLog ? device = new FaultInjectingDevice(inner) : inner,
        };
        await using var store = StoreOpener.Open(settings, NullLogger.Instance);
        // About 1.5 MB of records: more than the first 1 MB segment.
        for (int key = 0; key < 12_000; key++)
        {
            await store.UpsertAsync(Key(key), Value(key));
        }

        device!.HoldReads();
        Task<(bool Found, PooledBuffer Value)> read;
        try
        {
            read = store.ReadAsync(Key(0)).AsTask();
            await Eventually.TrueAsync(() => device.HeldReads > 0, () => "the read of the oldest key never reached the disk");
            device.StopHoldingNewReads();
            long beginBefore = store.FasterKV.Log.BeginAddress;
            await store.CompactAsync();
            Assert.True(store.FasterKV.Log.BeginAddress > beginBefore, "the compaction must move the begin address past the record being read");
            string firstSegment = store.Layout!.SegmentPath(0);
            await Eventually.TrueAsync(() => !File.Exists(firstSegment), () => $"the compaction never deleted {firstSegment} (begin address {store.FasterKV.Log.BeginAddress})");
        }
        finally
        {
            device.ReleaseReads();
        }

        (bool found, PooledBuffer value) = await read.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.True(found, "the key vanished for a read that overlapped a compaction");
        Assert.Equal(Value(0), value.Span.ToArray());
        value.Return();

        // The read of a deleted file did not fault the store.
        await store.UpsertAsync(Key(0), Value(1));
        (found, value) = await store.ReadAsync(Key(0));
        Assert.True(found);
        Assert.Equal(Value(1), value.Span.ToArray());
        value.Return();
    }

    private static byte[] Key(int key) => BitConverter.GetBytes(key);

    private static byte[] Value(int key) => Encoding.UTF8.GetBytes($"value {key} ".PadRight(100, '#'));
}
