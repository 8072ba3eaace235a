using System;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Durability;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// A checkpoint takes an index checkpoint first once an open would replay enough of the log; an open then loads the
/// index and replays only the log written since, with every write after the index checkpoint applied. A damaged or
/// missing index checkpoint is passed over, at the cost of time only.
/// </summary>
public class IndexCheckpointTests
{
    private const int IndexCheckpointTakenEvent = 31;
    private const int IndexCheckpointNotUsedEvent = 33;
    private const int Keys = 20_000;

    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AnOpen_LoadsTheIndexCheckpoint_AndReplaysOnlyTheLogWrittenSince_WithEveryLaterWriteApplied(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        StoreSettings settings = Settings(temp.Path, mode);
        var logger = new RecordingLogger();
        IndexCheckpointRecord index;
        await using (FasterRecordStore store = StoreOpener.Open(settings, logger))
        {
            await WriteAsync(store, 0, Keys, version: 1);
            await store.CheckpointAsync();
            Assert.Contains(IndexCheckpointTakenEvent, logger.EventIds);
            index = CheckpointRecord.ReadIfExists(new LogFileLayout(temp.Path, "store").CheckpointRecordPath)!.Index!;
            Assert.NotNull(index);
            Assert.True(index.StartLogicalAddress > store.FasterKV.Log.BeginAddress);

            // After the index checkpoint: overwrites, deletes and new keys, which only the replay can bring back.
            await WriteAsync(store, 0, Keys / 10, version: 2);
            for (int i = Keys / 10; i < Keys / 5; i++)
            {
                await store.DeleteAsync(Key(i));
            }

            await WriteAsync(store, Keys, Keys + 100, version: 1);
        }

        var reopenLog = new RecordingLogger();
        await using (FasterRecordStore reopened = StoreOpener.Open(settings, reopenLog))
        {
            string recovered = reopenLog.Events.Single(e => e.Id.Id == 21).Message;
            Assert.Contains($"from index checkpoint {index.Token}, log replayed from address {index.StartLogicalAddress}", recovered, StringComparison.Ordinal);
            await AssertEveryKeyAsync(reopened);
        }
    }

    /// <summary>
    /// An upsert allocates and fills its record, then links it into the index. FASTER's index checkpoint records the
    /// log's tail as where recovery replays from and copies the index from memory at once; a write caught between its
    /// allocation and its link was in neither, so after a crash its key read as before the write, though the write had
    /// been acknowledged, and in Commit mode the checkpoint after it had let the write-ahead log drop it. Writers are now
    /// held while the index checkpoint starts. The write runs on a thread of its own: in Checkpoint mode an upsert
    /// completes on its caller's thread, and the hook would hold the test instead of the write.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AWriteBetweenItsRecordsAllocationAndItsLink_WhenAnIndexCheckpointStarts_SurvivesACrash(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        using var image = new TempDirectory();
        byte[] heldKey = Key(Keys + 1);
        using var release = new ManualResetEventSlim();
        var held = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        StoreSettings settings = Settings(temp.Path, mode) with
        {
            MinReplayBytesForIndexCheckpoint = 1,
            BeforeNewRecordLinked = key =>
            {
                if (key.AsSpan().SequenceEqual(heldKey) && held.TrySetResult())
                {
                    release.Wait(TimeSpan.FromSeconds(30));
                }
            },
        };
        var logger = new RecordingLogger();
        await using (FasterRecordStore store = StoreOpener.Open(settings, logger))
        {
            await WriteAsync(store, 0, 1_000, version: 1);
            Task write = Task.Run(() => store.UpsertAsync(heldKey, Value(Keys + 1, 1, 200)).AsTask());
            await held.Task.WaitAsync(TimeSpan.FromSeconds(30));

            // The index checkpoint, due at every checkpoint here, completes at once unless writers are held while it
            // starts; the held write then keeps it from starting until the write is let go.
            Task checkpoint = store.CheckpointAsync();
            for (int waited = 0; waited < 200 && !logger.EventIds.Contains(IndexCheckpointTakenEvent); waited++)
            {
                await Task.Delay(10);
            }

            release.Set();
            await write.WaitAsync(TimeSpan.FromSeconds(30));
            await checkpoint.WaitAsync(TimeSpan.FromSeconds(30));
            Assert.Contains(IndexCheckpointTakenEvent, logger.EventIds);
            CopyAsCrashImage(temp.Path, image.Path);
        }

        await using FasterRecordStore recovered = StoreOpener.Open(Settings(image.Path, mode), new RecordingLogger());
        Assert.Equal(Value(Keys + 1, 1, 200), await ReadAsync(recovered, Keys + 1));
        Assert.Equal(Value(999, 1, 200), await ReadAsync(recovered, 999));
    }

    /// <summary>FASTER keeps the previous index checkpoint too; the store keeps only the one its record names, as each is as large as the hash table.</summary>
    [Fact]
    public async Task ASecondIndexCheckpoint_ReplacesTheFirst_OnDisk()
    {
        using var temp = new TempDirectory();
        var layout = new LogFileLayout(temp.Path, "store");
        var logger = new RecordingLogger();
        await using FasterRecordStore store = StoreOpener.Open(Settings(temp.Path, DurabilityMode.Checkpoint), logger);
        await WriteAsync(store, 0, Keys, version: 1);
        await store.CheckpointAsync();
        Guid first = CheckpointRecord.ReadIfExists(layout.CheckpointRecordPath)!.Index!.Token;

        await WriteAsync(store, 0, Keys, version: 2);
        await store.CheckpointAsync();

        Assert.Equal(2, logger.EventIds.Count(id => id == IndexCheckpointTakenEvent));
        Guid second = CheckpointRecord.ReadIfExists(layout.CheckpointRecordPath)!.Index!.Token;
        Assert.NotEqual(first, second);
        Assert.Equal([second.ToString()], Directory.GetDirectories(IndexCheckpointRecord.RootOf(layout)).Select(Path.GetFileName));
    }

    /// <remarks>
    /// FASTER 2.6.5 checks none of this itself: given the hash table file cut short, it recovers without complaint and
    /// the keys whose buckets were cut off read as missing (seen with the record's check bypassed). The record's
    /// lengths and checksums are the only guard.
    /// </remarks>
    [Theory]
    [InlineData("ht.dat.0", Damage.FlipABit)]
    [InlineData("info.dat.0", Damage.FlipABit)]
    [InlineData("ht.dat.0", Damage.Delete)]
    [InlineData("ht.dat.0", Damage.CutShort)]
    public async Task ADamagedOrMissingIndexCheckpointFile_IsPassedOver_AndTheIndexIsRebuiltFromTheLog(string file, Damage damage)
    {
        using var temp = new TempDirectory();
        StoreSettings settings = Settings(temp.Path, DurabilityMode.Checkpoint);
        var layout = new LogFileLayout(temp.Path, "store");
        await using (FasterRecordStore store = StoreOpener.Open(settings, new RecordingLogger()))
        {
            await WriteAsync(store, 0, Keys, version: 1);
            await store.CheckpointAsync();
            await WriteAsync(store, 0, Keys / 10, version: 2);
            for (int i = Keys / 10; i < Keys / 5; i++)
            {
                await store.DeleteAsync(Key(i));
            }

            await WriteAsync(store, Keys, Keys + 100, version: 1);
        }

        IndexCheckpointRecord index = CheckpointRecord.ReadIfExists(layout.CheckpointRecordPath)!.Index!;
        string path = Path.Combine(IndexCheckpointRecord.FolderOf(layout, index.Token), file);
        if (damage == Damage.FlipABit)
        {
            // One flipped bit in the middle of the file: in the table, an address pointing somewhere else in the log.
            byte[] bytes = File.ReadAllBytes(path);
            bytes[bytes.Length / 2 + 3] ^= 0x10;
            File.WriteAllBytes(path, bytes);
        }
        else if (damage == Damage.CutShort)
        {
            using var cut = new FileStream(path, FileMode.Open);
            cut.SetLength(4096);
        }
        else
        {
            File.Delete(path);
        }

        var reopenLog = new RecordingLogger();
        await using (FasterRecordStore reopened = StoreOpener.Open(settings, reopenLog))
        {
            var notUsed = reopenLog.Events.Single(e => e.Id.Id == IndexCheckpointNotUsedEvent);
            Assert.Contains(index.Token.ToString(), notUsed.Message, StringComparison.Ordinal);
            Assert.Contains("rebuilt from the whole log", reopenLog.Events.Single(e => e.Id.Id == 21).Message, StringComparison.Ordinal);
            await AssertEveryKeyAsync(reopened);

            // The next checkpoint takes a new index checkpoint, as the whole log would be replayed again.
            await reopened.CheckpointAsync();
            Assert.Contains(IndexCheckpointTakenEvent, reopenLog.EventIds);
        }
    }

    /// <summary>
    /// Once the whole log is smaller than what makes an index checkpoint worth taking (here the bound is raised, as
    /// compaction shrinking the log would), the next checkpoint record drops it and its files, as large as the hash
    /// table, are deleted; the open rebuilds the index from the log, which compaction moved past the index checkpoint's
    /// start, and nothing is lost.
    /// </summary>
    [Fact]
    public async Task AnIndexCheckpointTheLogNoLongerNeeds_IsDroppedWithItsFiles_AndEveryKeyRecovers()
    {
        using var temp = new TempDirectory();
        StoreSettings settings = Settings(temp.Path, DurabilityMode.Checkpoint);
        var layout = new LogFileLayout(temp.Path, "store");
        await using (FasterRecordStore store = StoreOpener.Open(settings, new RecordingLogger()))
        {
            await WriteAsync(store, 0, Keys, version: 1);
        }

        IndexCheckpointRecord index = CheckpointRecord.ReadIfExists(layout.CheckpointRecordPath)!.Index!;
        await using (FasterRecordStore store = StoreOpener.Open(settings with { MinReplayBytesForIndexCheckpoint = 1L << 40 }, new RecordingLogger()))
        {
            await WriteAsync(store, 0, Keys / 10, version: 2);
            for (int i = Keys / 10; i < Keys / 5; i++)
            {
                await store.DeleteAsync(Key(i));
            }

            await WriteAsync(store, Keys, Keys + 100, version: 1);
            await store.CompactAsync();
            Assert.True(store.FasterKV.Log.BeginAddress > index.StartLogicalAddress, "compaction must move the begin address past the index checkpoint's start");
        }

        Assert.Null(CheckpointRecord.ReadIfExists(layout.CheckpointRecordPath)!.Index);
        Assert.False(Directory.Exists(IndexCheckpointRecord.FolderOf(layout, index.Token)), "the dropped index checkpoint's files are still on disk");
        var reopenLog = new RecordingLogger();
        await using FasterRecordStore reopened = StoreOpener.Open(settings, reopenLog);
        Assert.Contains("rebuilt from the whole log", reopenLog.Events.Single(e => e.Id.Id == 21).Message, StringComparison.Ordinal);
        Assert.DoesNotContain(IndexCheckpointNotUsedEvent, reopenLog.EventIds);
        await AssertEveryKeyAsync(reopened);
    }

    public enum Damage
    {
        FlipABit,
        Delete,
        CutShort,
    }

    private static StoreSettings Settings(string directory, DurabilityMode mode) =>
        StoreSettingsValidator.Validate(Options(directory, mode)) with { MinReplayBytesForIndexCheckpoint = 512 << 10 };

    private static async Task WriteAsync(FasterRecordStore store, int from, int until, int version)
    {
        for (int i = from; i < until; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, version, 200));
        }
    }

    /// <summary>Keys [0, Keys/10) at version 2, [Keys/10, Keys/5) deleted, the rest up to Keys + 100 at version 1.</summary>
    private static async Task AssertEveryKeyAsync(FasterRecordStore store)
    {
        for (int i = 0; i < Keys + 100; i++)
        {
            byte[]? expected = i < Keys / 10 ? Value(i, 2, 200) : i < Keys / 5 ? null : Value(i, 1, 200);
            Assert.Equal(expected, await ReadAsync(store, i));
        }
    }
}
