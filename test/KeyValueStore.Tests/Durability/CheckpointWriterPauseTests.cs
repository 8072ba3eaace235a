using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Durability;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
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
            await WriteFirstRecordsAsync(store);

            segments!.HoldWrites();
            Task checkpoint = store.CheckpointAsync();
            try
            {
                await Eventually.TrueAsync(() => segments.HeldWrites > 0 || checkpoint.IsCompleted, () => "the checkpoint wrote no page");
                Assert.False(checkpoint.IsCompleted, "the checkpoint completed with its pages held back");

                await AssertAWriteCompletesAsync(store, "a write waited for the checkpoint");
                Assert.False(checkpoint.IsCompleted, "the checkpoint completed with its pages held back");
            }
            finally
            {
                segments.ReleaseWrites();
            }

            await checkpoint;
            await store.CheckpointAsync();
        }

        await AssertAReopenReadsAsync(options, (500, Value(500, 2, 100)));
    }

    /// <summary>
    /// FASTER asks for a page's write from inside its epoch, and a checkpoint cannot leave its in-progress phase until
    /// every thread inside the epoch has seen it. A device whose write call worked on the asking thread (the sector
    /// checksums, a new segment file, a contended lock: up to 8 ms measured) kept the checkpoint there, and the writers
    /// it had paused waited as long. Page writes now leave the epoch first (<see cref="OffEpochWriteDevice"/>): a write
    /// goes on while a page's write call is still blocked, and the checkpoint finishes once it is not.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AWrite_WhileAPageWriteCallIsBlockedOnItsThread_IsNotHeldByACheckpoint(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);

        // 256 pages: the blocked page keeps its frame, and the writes after it need room in the others.
        options.MemorySizeBits = 20;
        int filled = 0;
        await using (var store = StoreFactory.OpenWithFaultInjection(options, out FaultInjectingDevice segments))
        {
            await WriteFirstRecordsAsync(store);

            // Fills the log until its first page turns read-only, which asks for that page's write, and stops there: the
            // pages after it have room for the writes below. On a task of its own: with the write issued on the asking
            // thread, the filler's own write would block there.
            segments.BlockNextWriteCall();
            long readOnlyBefore = store.FasterKV.Log.ReadOnlyAddress;
            Task filler = Task.Run(async () =>
            {
                for (int i = 1_000; store.FasterKV.Log.ReadOnlyAddress == readOnlyBefore && i < 100_000; i++)
                {
                    await store.UpsertAsync(Key(i), Value(i, 1, 100));
                    filled = i;
                }
            });
            Task checkpoint = Task.CompletedTask;
            try
            {
                await WithinHangLimitAsync(() => segments.BlockedWriteCalls > 0, "no page write was asked for");
                checkpoint = store.CheckpointAsync();
                await AssertAWriteCompletesAsync(store, "a write waited for a checkpoint held up by a page write call blocked inside FASTER");
                Assert.False(checkpoint.IsCompleted, "the checkpoint completed with a page write not yet issued");
            }
            finally
            {
                segments.UnblockWriteCall();
            }

            await filler.WaitAsync(HangLimit);
            await checkpoint.WaitAsync(HangLimit);
        }

        await AssertAReopenReadsAsync(options, (500, Value(500, 2, 100)), (filled, Value(filled, 1, 100)));
    }

    /// <summary>
    /// FASTER goes on from a checkpoint's fixed tail to writing its metadata on the same call when the log is already
    /// flushed that far (nothing was written since the last checkpoint, or its flush finished first): the sector checksums'
    /// sync and the metadata's write, up to 5.7 ms on the load test's disk. Writers once waited for that call to return, so a
    /// checkpoint held them across its sync; now they go as soon as the tail is fixed, whatever the call is still doing.
    /// Here the metadata's write is held back, and a write must still complete.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AWrite_WhileACheckpointsMetadataWriteIsHeld_IsNotHeldByTheCheckpoint(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);
        await WhileACheckpointsMetadataIsHeldAsync(options, async (store, checkpoint) =>
        {
            await AssertAWriteCompletesAsync(store, "a write waited for a checkpoint's metadata, past its fixed tail");
            Assert.False(checkpoint.IsCompleted, "the checkpoint completed with its metadata held back");
        });

        await AssertAReopenReadsAsync(options, (500, Value(500, 2, 100)));
    }

    /// <summary>
    /// FASTER writes a checkpoint's metadata from inside its epoch, and while a thread is inside the epoch FASTER cannot
    /// close the log page that the next page turn reuses: with the commit (the checksums' sync, the metadata's write) made
    /// there, every writer that reached the end of a page waited for it (up to 9.6 ms measured under the paced load test,
    /// seven writers at once). The commit now runs off the epoch (<see cref="CheckpointCommits"/>). Here the metadata's
    /// write is held while writes run through four times the log's memory; they must all complete.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task Writes_ThatTurnTheLogsPages_WhileACheckpointsMetadataWriteIsHeld_AreNotHeldByTheCheckpoint(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);
        int last = 0;
        await WhileACheckpointsMetadataIsHeldAsync(options, async (store, checkpoint) =>
        {
            // On a task of its own: a write waiting for a page to close spins inside FASTER on the thread that called it.
            long until = store.FasterKV.Log.TailAddress + (4L << options.MemorySizeBits);
            Task writes = Task.Run(async () =>
            {
                for (int i = 1_000; store.FasterKV.Log.TailAddress < until; i++)
                {
                    await store.UpsertAsync(Key(i), Value(i, 1, 100));
                    last = i;
                }
            });
            await AssertCompletesWithinHangLimitAsync(writes, () => $"writes turning the log's pages waited for a checkpoint's metadata (the last completed: key {last})");
            Assert.False(checkpoint.IsCompleted, "the checkpoint completed with its metadata held back");
        });

        await AssertAReopenReadsAsync(options, (last, Value(last, 1, 100)));
    }

    /// <summary>
    /// FASTER deletes the segments below a checkpoint's begin address as soon as it has handed the checkpoint's metadata
    /// to its manager. With the metadata written later, off FASTER's epoch, the segments went first: a crash before the
    /// metadata was written left the previous checkpoint the latest on disk, without segments it needs, and the store
    /// would not open (the crash soak found it). Truncations now wait for the commit (<see cref="TruncationSafeDevice"/>).
    /// Here compaction's checkpoint, which drops the emptied segments, has its metadata held, and a crash image taken
    /// then must reopen with every value.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task ACrash_WhileTheMetadataOfACheckpointAfterCompactionIsHeld_ReopensWithEveryValue(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        using var image = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);
        const int Keys = 4_000;
        var metadata = new HeldCheckpointFiles();
        await using (var store = StoreOpener.Open(metadata.Wrapping(options), NullLogger.Instance))
        {
            await WriteFirstRecordsAsync(store);
            for (int version = 1; version <= 3; version++)
            {
                for (int i = 1_000; i < 1_000 + Keys; i++)
                {
                    await store.UpsertAsync(Key(i), Value(i, version, 300));
                }
            }

            await store.CheckpointAsync();
            long beginBefore = store.FasterKV.Log.BeginAddress;
            Task compaction = metadata.HoldingFromNow(() => store.CompactAsync());
            try
            {
                await WithinHangLimitAsync(() => metadata.Held || compaction.IsCompleted, "no checkpoint metadata was written during compaction");
                Assert.False(compaction.IsCompleted, "the compaction completed with its checkpoint's metadata held back");

                // Time for a truncation that did not wait for the metadata to delete the emptied segments.
                await Task.Delay(500);
                Assert.True(store.FasterKV.Log.BeginAddress > beginBefore + (1L << options.SegmentSizeBits), "the compaction emptied no segment");
                CrashImage.Copy(temp.Path, image.Path);
            }
            finally
            {
                metadata.Release();
            }

            await compaction.WaitAsync(HangLimit);
        }

        var reads = Enumerable.Range(1_000, Keys).Select(i => (i, Value(i, 3, 300))).ToArray();
        await AssertAReopenReadsAsync(Options(image.Path, mode), reads);
        await AssertAReopenReadsAsync(options, reads);
    }

    /// <summary>
    /// A Commit-mode checkpoint once closed the store's write barrier and waited there for the writes in flight, which
    /// were waiting for their group commit: every new writer waited for a flush of the log it had not even appended to.
    /// Now the checkpoint waits for the earlier writes alone. The log's flushes are held here, so the earlier write
    /// cannot finish; later writes must still reach the log. They land beside the checkpoint, past the position it
    /// records, and a crash image shows recovery writing them again over it in the log's order.
    /// </summary>
    [Fact]
    public async Task ACommitModeCheckpoint_WaitingForAWriteInItsGroupCommit_HoldsNoLaterWriterOutOfTheLog()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.Commit);
        FaultInjectingDevice? walDevice = null;
        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            WrapDevice = (inner, role) => role == DeviceRole.WriteAheadLog ? walDevice = new FaultInjectingDevice(inner) : inner,
        };

        using var image = new TempDirectory();
        await using (var store = StoreOpener.Open(settings, NullLogger.Instance))
        {
            await WriteFirstRecordsAsync(store);

            WriteAheadLog log = ((WriteAheadJournal)store.Journal).Log;
            walDevice!.HoldWrites();
            Task earlier;
            Task checkpoint;
            Task[] later;
            try
            {
                earlier = store.UpsertAsync(Key(200), Value(200, 1, 100)).AsTask();
                await Eventually.TrueAsync(() => walDevice.HeldWrites > 0, () => "the write's group commit wrote nothing");
                long afterEarlier = log.Tail.NextSequence;

                checkpoint = store.CheckpointAsync();
                await Eventually.TrueAsync(() => store.Journal.Checkpoints!.Mark().Running > 0, () => "the checkpoint did not start");

                // Time for a checkpoint that would close the store's barrier to have done so.
                await Task.Delay(200);
                later = [store.UpsertAsync(Key(201), Value(201, 1, 100)).AsTask(), store.UpsertAsync(Key(200), Value(200, 2, 100)).AsTask()];
                await WithinHangLimitAsync(() => log.Tail.NextSequence >= afterEarlier + 2, "the later writes did not reach the write-ahead log while the checkpoint waited for the earlier one");

                Assert.False(earlier.IsCompleted, "the earlier write completed with its commit held");
                Assert.False(checkpoint.IsCompleted, "the checkpoint completed before the write that began before it");
            }
            finally
            {
                walDevice.ReleaseWrites();
            }

            await Task.WhenAll([earlier, checkpoint, .. later]).WaitAsync(HangLimit);
            CrashImage.Copy(temp.Path, image.Path);
        }

        foreach (string directory in new[] { image.Path, temp.Path })
        {
            MixedStorageKVStoreOptions reopen = Options(directory, DurabilityMode.Commit);
            await AssertAReopenReadsAsync(reopen, (200, Value(200, 2, 100)), (201, Value(201, 1, 100)));
        }
    }

    /// <summary>
    /// Opens a store on <paramref name="options"/>, writes its first records, and starts a checkpoint whose metadata's
    /// write is held; runs <paramref name="whileHeld"/> with the store and that checkpoint, then lets the metadata go,
    /// waits for the checkpoint, takes one more and closes the store, for the caller to reopen.
    /// </summary>
    private static async Task WhileACheckpointsMetadataIsHeldAsync(MixedStorageKVStoreOptions options, Func<FasterRecordStore, Task, Task> whileHeld)
    {
        var metadata = new HeldCheckpointFiles();
        await using var store = StoreOpener.Open(metadata.Wrapping(options), NullLogger.Instance);
        await WriteFirstRecordsAsync(store);
        Task checkpoint = await metadata.StartACheckpointHeldAtItsMetadataAsync(store);
        try
        {
            await whileHeld(store, checkpoint);
        }
        finally
        {
            metadata.Release();
        }

        await checkpoint.WaitAsync(HangLimit);
        await store.CheckpointAsync();
    }

    /// <summary>Writes key 500 while the checkpoint is held up, and fails with <paramref name="failure"/> unless the write completes within the hang limit.</summary>
    private static Task AssertAWriteCompletesAsync(FasterRecordStore store, string failure) =>
        AssertCompletesWithinHangLimitAsync(store.UpsertAsync(Key(500), Value(500, 2, 100)).AsTask(), () => failure);

    /// <summary>Fails with <paramref name="failure"/> unless <paramref name="work"/> completes within the hang limit; then awaits it.</summary>
    private static async Task AssertCompletesWithinHangLimitAsync(Task work, Func<string> failure)
    {
        Task first = await Task.WhenAny(work, Task.Delay(HangLimit));

        Assert.True(work == first, failure());
        await work;
    }

    /// <summary>The hundred records every test writes before its checkpoint, each of 100 bytes.</summary>
    private static async Task WriteFirstRecordsAsync(FasterRecordStore store)
    {
        for (int i = 0; i < 100; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 100));
        }
    }

    /// <summary>Reopens the store of <paramref name="options"/> and reads <paramref name="later"/> and the first hundred records back.</summary>
    private static async Task AssertAReopenReadsAsync(MixedStorageKVStoreOptions options, params (int Key, byte[] Value)[] later)
    {
        await using var reopened = StoreOpener.Open(StoreSettingsValidator.Validate(options), NullLogger.Instance);
        foreach ((int key, byte[] value) in later)
        {
            Assert.Equal(value, await ReadAsync(reopened, key));
        }

        for (int i = 0; i < 100; i++)
        {
            Assert.Equal(Value(i, 1, 100), await ReadAsync(reopened, i));
        }
    }

    private static async Task WithinHangLimitAsync(Func<bool> condition, string failure)
    {
        using var limit = new CancellationTokenSource(HangLimit);
        while (!condition() && !limit.IsCancellationRequested)
        {
            await Task.Delay(10);
        }

        Assert.True(condition(), failure);
    }

    /// <summary>Holds back the writes of the checkpoint files opened while it holds: a checkpoint's metadata.</summary>
    private sealed class HeldCheckpointFiles
    {
        private readonly ConcurrentQueue<FaultInjectingDevice> _files = new();
        private int _holding;

        /// <summary>The settings of <paramref name="options"/>, with every checkpoint file passed through this.</summary>
        public StoreSettings Wrapping(MixedStorageKVStoreOptions options) => StoreSettingsValidator.Validate(options) with
        {
            WrapDevice = (inner, role) =>
            {
                if (role != DeviceRole.Checkpoint)
                {
                    return inner;
                }

                var device = new FaultInjectingDevice(inner);
                if (Volatile.Read(ref _holding) != 0)
                {
                    device.HoldWrites();
                }

                _files.Enqueue(device);
                return device;
            },
        };

        /// <summary>
        /// Flushes the log to its tail with a first checkpoint, so that the next one finds its pages on disk and goes
        /// straight to its metadata; then starts that one, holds its metadata's write, and returns it once it is held.
        /// </summary>
        public async Task<Task> StartACheckpointHeldAtItsMetadataAsync(FasterRecordStore store)
        {
            await store.CheckpointAsync();

            // On a task of its own: the caller's thread may be the one FASTER writes the metadata on.
            Task checkpoint = HoldingFromNow(() => store.CheckpointAsync());
            await WithinHangLimitAsync(() => Held || checkpoint.IsCompleted, "the checkpoint wrote no metadata");
            Assert.False(checkpoint.IsCompleted, "the checkpoint completed with its metadata held back");
            return checkpoint;
        }

        /// <summary>Gets whether a write of a checkpoint file is being held.</summary>
        public bool Held => _files.Any(file => file.HeldWrites > 0);

        /// <summary>Holds the checkpoint files opened from now on, and starts <paramref name="work"/> on a task of its own.</summary>
        public Task HoldingFromNow(Func<Task> work)
        {
            Volatile.Write(ref _holding, 1);
            return Task.Run(work);
        }

        /// <summary>Lets every held write go, and holds no more.</summary>
        public void Release()
        {
            Volatile.Write(ref _holding, 0);
            foreach (FaultInjectingDevice file in _files)
            {
                file.ReleaseWrites();
            }
        }
    }
}
