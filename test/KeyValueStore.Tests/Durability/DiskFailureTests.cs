using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.CrashHarness;
using KeyValueStore.Durability;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// The disk under a durable store's segment files fails (full, or an I/O error): typed errors, a fence, no hang, a
/// dispose that completes, and once the disk is back a reopen that holds every acknowledged write.
/// </summary>
public class DiskFailureTests
{
    private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task AfterTheSegmentFilesFail_TheStoresStatusSaysItIsFaulted_AndWhatFailed()
    {
        using var temp = new TempDirectory();
        var store = StoreFactory.OpenWithFaultInjection(Options(temp.Path, DurabilityMode.Checkpoint), out FaultInjectingDevice segments);
        Assert.False(store.Status().IsFaulted);
        Assert.Null(store.Status().Fault);

        segments.FailWrites(FaultInjectingDevice.InputOutputError);
        await WriteUntilFaultedAsync(store, from: 0);
        StoreStatus status = store.Status();
        Assert.True(status.IsFaulted);
        Assert.False(string.IsNullOrEmpty(status.Fault));
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);
    }

    [Theory]
    [InlineData(DurabilityMode.Checkpoint, FaultInjectingDevice.NoSpaceLeft, false)]
    [InlineData(DurabilityMode.Checkpoint, FaultInjectingDevice.InputOutputError, false)]
    [InlineData(DurabilityMode.Commit, FaultInjectingDevice.NoSpaceLeft, false)]
    [InlineData(DurabilityMode.Commit, FaultInjectingDevice.InputOutputError, false)]
    [InlineData(DurabilityMode.Checkpoint, FaultInjectingDevice.InputOutputError, true)]
    [InlineData(DurabilityMode.Commit, FaultInjectingDevice.InputOutputError, true)]
    public async Task AfterTheSegmentFilesFail_WritesThrowStoreFaulted_NothingHangs_AndAReopenHasEveryAcknowledgedWrite(DurabilityMode mode, uint error, bool reportedElsewhere)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);
        var store = StoreFactory.OpenWithFaultInjection(options, out FaultInjectingDevice segments);
        segments.ReportsFailuresElsewhere = reportedElsewhere;
        var durable = new Dictionary<int, byte[]>();
        for (int i = 0; i < 200; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 200));
            durable[i] = Value(i, 1, 200);
        }

        await store.CheckpointAsync();
        segments.FailWrites(error);

        // Memory holds sixteen pages: writing a few hundred kilobytes needs pages flushed, which now fail.
        StoreFaultedException? fault = null;
        int next = 1_000;
        for (; next < 20_000 && fault is null; next++)
        {
            try
            {
                await store.UpsertAsync(Key(next), Value(next, 1, 400)).AsTask().WaitAsync(HangLimit);

                // Commit mode acknowledges a write once its log entry is committed, so it must survive the fault.
                if (mode == DurabilityMode.Commit)
                {
                    durable[next] = Value(next, 1, 400);
                }
            }
            catch (StoreFaultedException e)
            {
                fault = e;
            }
        }

        Assert.NotNull(fault);
        Assert.Contains("segment", fault.Message, StringComparison.Ordinal);
        int failed = next - 1;

        // The fence: no later operation runs, even with the disk back, so nothing unacknowledged is ever seen.
        segments.FailWrites(0);
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.UpsertAsync(Key(failed), Value(failed, 2)).AsTask().WaitAsync(HangLimit));
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.DeleteAsync(Key(1)).AsTask().WaitAsync(HangLimit));
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.ApplyBatchAsync([BatchWrite.Upsert(Key(failed + 1), Value(failed + 1, 1))]).AsTask().WaitAsync(HangLimit));
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.CheckpointAsync().WaitAsync(HangLimit));
        await Assert.ThrowsAsync<StoreFaultedException>(() => ReadAsync(store, 5).WaitAsync(HangLimit));

        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);

        await using var reopened = StoreFactory.Open(options);
        foreach ((int key, byte[] value) in durable)
        {
            Assert.Equal(value, await ReadAsync(reopened, key));
        }

        Assert.Null(await ReadAsync(reopened, failed));
        Assert.Null(await ReadAsync(reopened, failed + 1));
        await reopened.UpsertAsync(Key(failed), Value(failed, 3));
        Assert.Equal(Value(failed, 3), await ReadAsync(reopened, failed));
    }

    /// <summary>
    /// A compaction waits on the disk: its copies need page flushes, which FASTER never retries once one failed, and its
    /// scan loads pages, which turns a failed read into FASTER's own <c>FasterException</c>. Either way the compaction
    /// must end with the store's typed fault, with the write barrier it closed open again, and a reopen must hold
    /// everything.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.None, false)]
    [InlineData(DurabilityMode.Checkpoint, false)]
    [InlineData(DurabilityMode.Commit, false)]
    [InlineData(DurabilityMode.None, true)]
    [InlineData(DurabilityMode.Checkpoint, true)]
    [InlineData(DurabilityMode.Commit, true)]
    public async Task ACompactionRunningWhenTheDiskFails_EndsWithStoreFaulted_AndNothingHangs(DurabilityMode mode, bool readsFail)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);
        var store = StoreFactory.OpenWithFaultInjection(options, out FaultInjectingDevice segments);

        // Ten times the memory, every key written twice: the compaction has hundreds of kilobytes of live records to copy.
        for (int version = 1; version <= 2; version++)
        {
            for (int i = 0; i < 3_000; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, version, 200));
            }
        }

        if (mode != DurabilityMode.None)
        {
            await store.CheckpointAsync();
        }

        if (readsFail)
        {
            segments.FailReads(FaultInjectingDevice.InputOutputError);
        }
        else
        {
            segments.FailWrites(FaultInjectingDevice.NoSpaceLeft);
        }

        var error = await Assert.ThrowsAsync<StoreFaultedException>(() => store.CompactAsync().WaitAsync(HangLimit));
        Assert.Contains(readsFail ? "read" : "write", error.Message, StringComparison.Ordinal);
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.UpsertAsync(Key(1), Value(1, 3)).AsTask().WaitAsync(HangLimit));
        await Assert.ThrowsAsync<StoreFaultedException>(() => ReadAsync(store, 2_999).WaitAsync(HangLimit));
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);

        if (mode != DurabilityMode.None)
        {
            segments.FailReads(0);
            segments.FailWrites(0);
            await using var reopened = StoreFactory.Open(options);
            for (int i = 0; i < 3_000; i++)
            {
                Assert.Equal(Value(i, 2, 200), await ReadAsync(reopened, i));
            }
        }
    }

    /// <summary>What a full disk does to an open that must create or extend files: a typed error, and the files kept.</summary>
    [Fact]
    public async Task OpeningWhenTheDiskRefusesTheSegmentFiles_ThrowsLogDirectoryUnavailable_AndChangesNothing()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.Checkpoint);
        await using (var store = StoreFactory.Open(options))
        {
            for (int i = 0; i < 200; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1, 200));
            }
        }

        var before = Snapshot(temp.Path);
        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            WrapDevice = (inner, role) =>
            {
                inner.Dispose();
                throw new System.IO.IOException("No space left on device");
            },
        };

        var error = Assert.Throws<LogDirectoryUnavailableException>(() => StoreOpener.Open(settings, NullLogger.Instance));

        Assert.Contains("No space left on device", error.Message, StringComparison.Ordinal);
        Assert.Contains("free space", error.Message, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(temp.Path));
        await using var reopened = StoreFactory.Open(options);
        for (int i = 0; i < 200; i++)
        {
            Assert.Equal(Value(i, 1, 200), await ReadAsync(reopened, i));
        }
    }

    /// <summary>
    /// FASTER 2.6.5 ignores a failed read's error and parses whatever its buffer holds. The store must turn it into a
    /// typed error, never a wrong value or a "not found".
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.None)]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AFailedReadFromTheSegmentFiles_ThrowsStoreFaulted_NeverNotFoundOrAWrongValue(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);
        var store = StoreFactory.OpenWithFaultInjection(options, out FaultInjectingDevice segments);
        for (int i = 0; i < 3_000; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 200));
        }

        if (mode != DurabilityMode.None)
        {
            await store.CheckpointAsync();
        }

        // Key 0 was written first: with 64 KB of memory it lives only in a segment file now.
        Assert.Equal(Value(0, 1, 200), await ReadAsync(store, 0));
        segments.FailReads(FaultInjectingDevice.InputOutputError);

        var error = await Assert.ThrowsAsync<StoreFaultedException>(() => ReadAsync(store, 1).WaitAsync(HangLimit));
        Assert.Contains("read", error.Message, StringComparison.Ordinal);
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.UpsertAsync(Key(1), Value(1, 2)).AsTask().WaitAsync(HangLimit));
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);

        if (mode != DurabilityMode.None)
        {
            segments.FailReads(0);
            await using var reopened = StoreFactory.Open(options);
            for (int i = 0; i < 3_000; i++)
            {
                Assert.Equal(Value(i, 1, 200), await ReadAsync(reopened, i));
            }
        }
    }

    /// <summary>
    /// A disk that fails may also stop answering: a read already waiting on it must end with the store's fault once
    /// the store knows of it, not wait for an answer that may never come (and keep its caller and the store's dispose
    /// waiting with it).
    /// </summary>
    [Fact]
    public async Task AReadWaitingOnTheDisk_WhenTheStoreFaults_ThrowsStoreFaulted_WithoutWaitingForTheDisk()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.None);
        var store = StoreFactory.OpenWithFaultInjection(options, out FaultInjectingDevice segments);
        for (int i = 0; i < 3_000; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 200));
        }

        // Key 0 lives only in a segment file: its read waits on the (held) disk.
        segments.HoldReads();
        Task<byte[]?> waiting = ReadAsync(store, 0);
        await Eventually.TrueAsync(() => segments.HeldReads > 0, () => "the read never reached the disk");
        Assert.False(waiting.IsCompleted);

        segments.FailWrites(FaultInjectingDevice.InputOutputError);
        await WriteUntilFaultedAsync(store, from: 3_000);
        try
        {
            await Assert.ThrowsAsync<StoreFaultedException>(() => waiting.WaitAsync(HangLimit));
        }
        finally
        {
            segments.ReleaseReads();
        }

        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);
    }

    /// <summary>
    /// A device that throws out of a checkpoint's write (a defect, not an I/O error it reports) leaves FASTER's
    /// checkpoint state machine where it stopped: the exception reached the caller as it was, and every later
    /// checkpoint, the close's included, waited for that one forever. The store must fault instead, with its typed
    /// exception, and a reopen must hold what the store promised before.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AnExceptionThrownOutOfACheckpoint_FaultsTheStore_NothingHangs_AndAReopenHasWhatWasPromised(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);
        Exception? thrownByNewDevices = null;
        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            // Each checkpoint opens devices of its own.
            WrapDevice = (inner, role) =>
            {
                if (role != DeviceRole.Checkpoint)
                {
                    return inner;
                }

                var device = new FaultInjectingDevice(inner);
                device.ThrowFromWrites(thrownByNewDevices);
                return device;
            },
        };
        var store = StoreOpener.Open(settings, NullLogger.Instance);
        for (int i = 0; i < 200; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 200));
        }

        await store.CheckpointAsync();
        for (int i = 0; i < 200; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 2, 200));
        }

        var defect = new InvalidOperationException("a defect in the checkpoint device");
        thrownByNewDevices = defect;
        var error = await Assert.ThrowsAsync<StoreFaultedException>(() => store.CheckpointAsync().WaitAsync(HangLimit));

        Assert.Contains("checkpoint", error.Message, StringComparison.Ordinal);
        Assert.Contains(defect.Message, error.Message, StringComparison.Ordinal);
        Assert.Same(defect, error.InnerException);
        thrownByNewDevices = null;
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.UpsertAsync(Key(1), Value(1, 3)).AsTask().WaitAsync(HangLimit));
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.CheckpointAsync().WaitAsync(HangLimit));
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);

        // Checkpoint mode promised the last complete checkpoint; Commit mode every acknowledged write.
        int promised = mode == DurabilityMode.Commit ? 2 : 1;
        await using var reopened = StoreFactory.Open(options);
        for (int i = 0; i < 200; i++)
        {
            Assert.Equal(Value(i, promised, 200), await ReadAsync(reopened, i));
        }
    }

    /// <summary>
    /// FASTER 2.6.5 logs a failed write of a checkpoint's files and carries on: the checkpoint "completes", and the
    /// previous one, the only complete checkpoint on disk, is deleted. The store must fail the checkpoint and keep
    /// the previous one.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AFailedWriteOfACheckpointsFiles_FailsThatCheckpoint_AndThePreviousOneStillRecovers(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);
        var checkpointDevices = new List<FaultInjectingDevice>();
        bool failing = false;
        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            WrapDevice = (inner, role) =>
            {
                if (role != DeviceRole.Checkpoint)
                {
                    return inner;
                }

                var device = new FaultInjectingDevice(inner);
                device.FailWrites(Volatile.Read(ref failing) ? FaultInjectingDevice.NoSpaceLeft : 0);
                lock (checkpointDevices)
                {
                    checkpointDevices.Add(device);
                }

                return device;
            },
        };
        var store = StoreOpener.Open(settings, NullLogger.Instance);
        for (int i = 0; i < 200; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 200));
        }

        await store.CheckpointAsync();
        Volatile.Write(ref failing, true);
        lock (checkpointDevices)
        {
            checkpointDevices.ForEach(device => device.FailWrites(FaultInjectingDevice.NoSpaceLeft));
        }

        for (int i = 200; i < 400; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 200));
        }

        await Assert.ThrowsAsync<StoreFaultedException>(() => store.CheckpointAsync().WaitAsync(HangLimit));
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);

        await using var reopened = StoreFactory.Open(options);
        int last = mode == DurabilityMode.Commit ? 400 : 200;
        for (int i = 0; i < last; i++)
        {
            Assert.Equal(Value(i, 1, 200), await ReadAsync(reopened, i));
        }
    }

    /// <summary>
    /// The checkpoint record is written after FASTER completes a checkpoint. If that write fails (here: its temporary
    /// file's path is taken by a directory), the store must say so with a typed error, and the store must still open
    /// afterwards on the checkpoint the record names.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AFailedWriteOfTheCheckpointRecord_FailsThatCheckpoint_AndTheStoreStillOpens(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, mode);
        var store = StoreFactory.Open(options);
        for (int i = 0; i < 200; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 200));
        }

        await store.CheckpointAsync();
        string blocker = System.IO.Path.Combine(temp.Path, "store.checkpoint.json.tmp");
        System.IO.Directory.CreateDirectory(blocker);
        for (int i = 200; i < 400; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 200));
        }

        await Assert.ThrowsAsync<StoreFaultedException>(() => store.CheckpointAsync().WaitAsync(HangLimit));
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);
        System.IO.Directory.Delete(blocker);

        await using var reopened = StoreFactory.Open(options);
        int last = mode == DurabilityMode.Commit ? 400 : 200;
        for (int i = 0; i < last; i++)
        {
            Assert.Equal(Value(i, 1, 200), await ReadAsync(reopened, i));
        }
    }

    /// <summary>A write-ahead log that cannot be read back while a store recovers: the disk named as the cause, and the files kept for a later open.</summary>
    [Fact]
    public async Task AFailedReadOfTheWriteAheadLog_DuringRecovery_ThrowsTyped_AndALaterOpenRecoversEverything()
    {
        using var temp = new TempDirectory();
        string live = System.IO.Path.Combine(temp.Path, "live");
        string image = System.IO.Path.Combine(temp.Path, "image");
        await using (var store = StoreFactory.Open(Options(live, DurabilityMode.Commit)))
        {
            for (int i = 0; i < 300; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1, 200));
            }

            // What a crash leaves: every write acknowledged, so in the log; none checkpointed.
            CopyAsCrashImage(live, image);
        }

        MixedStorageKVStoreOptions options = Options(image, DurabilityMode.Commit);
        var before = Snapshot(image);
        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            WrapDevice = (inner, role) =>
            {
                if (role != DeviceRole.WriteAheadLog)
                {
                    return inner;
                }

                var device = new FaultInjectingDevice(inner);
                device.FailReads(FaultInjectingDevice.InputOutputError);
                return device;
            },
        };

        var error = await Assert.ThrowsAsync<LogDirectoryUnavailableException>(() => Task.Run(() => StoreOpener.Open(settings, NullLogger.Instance).DisposeAsync().AsTask()).WaitAsync(HangLimit));

        // The disk's error, not "the file is damaged": a user told to restore a backup would throw good files away.
        Assert.Contains("input/output error", error.Message, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(image));
        await using var reopened = StoreFactory.Open(options);
        for (int i = 0; i < 300; i++)
        {
            Assert.Equal(Value(i, 1, 200), await ReadAsync(reopened, i));
        }
    }

    /// <summary>
    /// Recovery reads the log's last pages back through the segment files' device: a failed read there would hand
    /// FASTER zeros for records, so the open must fail rather than open a store that silently lacks them.
    /// </summary>
    [Fact]
    public async Task AFailedReadOfTheSegmentFiles_DuringRecovery_ThrowsTyped_NeverOpensWithKeysMissing()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.Checkpoint);
        await using (var store = StoreFactory.Open(options))
        {
            for (int i = 0; i < 3_000; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1, 200));
            }
        }

        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            WrapDevice = (inner, role) =>
            {
                if (role != DeviceRole.HybridLog)
                {
                    return inner;
                }

                var device = new FaultInjectingDevice(inner);
                device.FailReads(FaultInjectingDevice.InputOutputError);
                return device;
            },
        };

        var error = await Assert.ThrowsAsync<LogDirectoryUnavailableException>(() => Task.Run(() => StoreOpener.Open(settings, NullLogger.Instance).DisposeAsync().AsTask()).WaitAsync(HangLimit));

        Assert.Contains("input/output error", error.Message, StringComparison.Ordinal);
        await using var reopened = StoreFactory.Open(options);
        for (int i = 0; i < 3_000; i++)
        {
            Assert.Equal(Value(i, 1, 200), await ReadAsync(reopened, i));
        }
    }

    /// <summary>
    /// A Commit-mode write is durable once its log entry is committed, and a reopen replays it. When the store faults
    /// between that commit and the write's apply (here a failed read faults it while the applies are held back), the write
    /// must be acknowledged: it threw, and a reopen then showed a write its caller was told had failed. A write that
    /// arrives after the fault is refused and is not in the reopened store.
    /// </summary>
    [Fact]
    public async Task ACommitModeWrite_CommittedBeforeTheStoreFaults_IsAcknowledged_AndAReopenShowsIt()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.Commit);
        var store = StoreFactory.OpenWithFaultInjection(options, out FaultInjectingDevice segments);
        Task committed = await FaultBetweenCommitAndApplyAsync(store, segments, () => store.UpsertAsync(Key(5_000), Value(5_000, 1, 100)).AsTask());

        await committed.WaitAsync(HangLimit);
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.UpsertAsync(Key(5_001), Value(5_001, 1, 100)).AsTask().WaitAsync(HangLimit));
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);

        await using var reopened = StoreFactory.Open(options);
        Assert.Equal(Value(5_000, 1, 100), await ReadAsync(reopened, 5_000));
        Assert.Null(await ReadAsync(reopened, 5_001));
        Assert.Equal(Value(1_999, 1, 100), await ReadAsync(reopened, 1_999));
    }

    /// <summary>
    /// The delete in the same window: whether its key existed is learned only by applying it, so it cannot be
    /// acknowledged, yet a reopen replays it. Its exception must say so, not the plain fault's "nor show one it did not
    /// acknowledge".
    /// </summary>
    [Fact]
    public async Task ACommitModeDelete_CommittedBeforeTheStoreFaults_ThrowsSayingAReopenAppliesIt_AndAReopenDoes()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.Commit);
        var store = StoreFactory.OpenWithFaultInjection(options, out FaultInjectingDevice segments);
        Task committed = await FaultBetweenCommitAndApplyAsync(store, segments, () => store.DeleteAsync(Key(1_999)).AsTask());

        StoreFaultedException error = await Assert.ThrowsAsync<StoreFaultedException>(() => committed.WaitAsync(HangLimit));
        Assert.Contains("reopening the store applies it", error.Message, StringComparison.Ordinal);
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);

        await using var reopened = StoreFactory.Open(options);
        Assert.Null(await ReadAsync(reopened, 1_999));
        Assert.Equal(Value(1_998, 1, 100), await ReadAsync(reopened, 1_998));
    }

    /// <summary>
    /// A segment device that throws out of a page write (a defect, not an I/O error it reports). Page writes are issued
    /// from a pool thread, outside FASTER's epoch (<see cref="OffEpochWriteDevice"/>), where nothing above would catch
    /// the exception: the store must fault, with its typed exception naming the files and the cause, and nothing hang.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.None)]
    [InlineData(DurabilityMode.Checkpoint)]
    public async Task AnExceptionThrownOutOfAPageWrite_FaultsTheStore_AndNothingHangs(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        var store = StoreFactory.OpenWithFaultInjection(Options(temp.Path, mode), out FaultInjectingDevice segments);
        var defect = new InvalidOperationException("a defect in the segment device");
        segments.ThrowFromWrites(defect);

        await WriteUntilFaultedAsync(store, from: 0);
        StoreFaultedException error = await Assert.ThrowsAsync<StoreFaultedException>(() => store.UpsertAsync(Key(1), Value(1, 2)).AsTask().WaitAsync(HangLimit));
        Assert.Contains("log segment files", error.Message, StringComparison.Ordinal);
        Assert.Contains(defect.Message, error.Message, StringComparison.Ordinal);
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);
    }

    /// <summary>
    /// Fills a Commit-mode store with 2,000 records (sixteen pages of memory: the first are on disk), holds its applies
    /// back, starts <paramref name="write"/>, waits until its entry is committed, then faults the store with a failed
    /// read from disk, and lets the applies go. Returns the write, which meets the fault at its apply.
    /// </summary>
    private static async Task<Task> FaultBetweenCommitAndApplyAsync(FasterRecordStore store, FaultInjectingDevice segments, Func<Task> write)
    {
        for (int i = 0; i < 2_000; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 100));
        }

        var journal = (WriteAheadJournal)store.Journal;
        await journal.Applies.CloseAsync();
        try
        {
            long tail = journal.Log.TailAddress;
            Task started = write();
            await Eventually.TrueAsync(() => journal.Log.CommittedUntilAddress > tail, () => "the write's entry was never committed");
            segments.FailReads(FaultInjectingDevice.InputOutputError);
            await Assert.ThrowsAsync<StoreFaultedException>(() => ReadAsync(store, 0).WaitAsync(HangLimit));
            return started;
        }
        finally
        {
            journal.Applies.Open();
        }
    }

    /// <summary>
    /// Writers waiting for the write barrier to open (held by a checkpoint starting, or by compaction's back-pressure)
    /// stop with the store's fault as soon as it faults, whether or not the holder ever lets go: a holder stuck on the
    /// dead disk must not keep them waiting for good. The barrier is closed here by hand, as a stuck holder leaves it.
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task WritersWaitingAtTheClosedWriteBarrier_StopWithTheStoresFault_WhenTheDiskFails(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        var store = StoreFactory.OpenWithFaultInjection(Options(temp.Path, mode), out FaultInjectingDevice segments);
        await store.UpsertAsync(Key(1), Value(1, 1));
        await store.Writes.CloseAsync();
        try
        {
            Task waiting = store.UpsertAsync(Key(2), Value(2, 1)).AsTask();
            await Task.Delay(100);
            Assert.False(waiting.IsCompleted, "the write went past the closed barrier");

            segments.FailWrites(FaultInjectingDevice.InputOutputError);
            await Assert.ThrowsAsync<StoreFaultedException>(() => store.CheckpointAsync().WaitAsync(HangLimit));

            await Assert.ThrowsAsync<StoreFaultedException>(() => waiting.WaitAsync(HangLimit));
        }
        finally
        {
            store.Writes.Open();
        }

        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);
    }

    /// <summary>
    /// Compaction's live estimate, its record reads held by a disk that then fails and never answers them. The estimate
    /// disposed its sessions on the way out, and FASTER's dispose waits for a session's reads in flight, so it blocked for
    /// good, and the compaction pass waiting for it held every writer back: the failing-disk crash soak found writers
    /// still waiting 20 s after the store faulted, in both durability modes.
    /// </summary>
    [Fact]
    public async Task ALiveEstimate_WhoseReadsTheFailedDiskNeverAnswers_EndsWithTheStoresFault()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.Checkpoint);

        // Pages of 64 KB, so that the estimate's window reads (a chunk of up to 64 KB, from a page's start) get through
        // and only its record reads are held.
        options.PageSizeBits = 16;
        options.MemorySizeBits = 18;
        var store = StoreFactory.OpenWithFaultInjection(options, out FaultInjectingDevice segments);
        for (int i = 0; i < 20_000; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 100));
        }

        segments.HoldReadsOfAtMost(32 * 1024);
        Task<long> estimate = store.LiveBytes.EstimateAsync();
        try
        {
            await Eventually.TrueAsync(() => segments.HeldReads > 0, () => "the estimate never read a record from the disk");
            segments.FailWrites(FaultInjectingDevice.InputOutputError);
            await WriteUntilFaultedAsync(store, from: 20_000);

            await Assert.ThrowsAsync<StoreFaultedException>(() => estimate.WaitAsync(HangLimit));
        }
        finally
        {
            segments.ReleaseReads();
        }

        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);
    }

    /// <summary>
    /// The write-ahead log's commit file (where recovery starts scanning for commit records) fails its writes while the
    /// log's own device works. FASTER calls the file from its commit worker after a commit record is on disk, and a
    /// throw there leaves that commit's waiters waiting for a completion that never comes: every writer, the group
    /// commits and the store's dispose hung. Now the store faults: each writer ends acknowledged (its commit record is on
    /// disk) or with <see cref="StoreFaultedException"/>, nothing hangs, and a reopen has every acknowledged write.
    /// </summary>
    [Fact]
    public async Task AFailedWriteOfTheWriteAheadLogsCommitFile_FaultsTheStore_NothingHangs_AndAReopenHasEveryAcknowledgedWrite()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.Commit);
        var disk = new DiskFailure();
        var store = StoreFactory.OpenWithFailingCommitFile(options, disk, out FailingDiskCommitFile commits);
        for (int i = 0; i < 500; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 100));
        }

        disk.Fail();
        var acknowledged = new System.Collections.Concurrent.ConcurrentBag<int>();
        Task[] writers = new Task[8];
        for (int w = 0; w < writers.Length; w++)
        {
            int first = 1_000 + (w * 10_000);
            writers[w] = Task.Run(async () =>
            {
                for (int i = first; i < first + 10_000; i++)
                {
                    try
                    {
                        await store.UpsertAsync(Key(i), Value(i, 1, 100));
                    }
                    catch (StoreFaultedException)
                    {
                        return;
                    }

                    acknowledged.Add(i);
                }
            });
        }

        await Task.WhenAll(writers).WaitAsync(HangLimit);
        Assert.True(commits.FailedWrites > 0, "no write of the commit file was attempted");
        StoreFaultedException error = await Assert.ThrowsAsync<StoreFaultedException>(() => store.UpsertAsync(Key(1), Value(1, 2, 100)).AsTask().WaitAsync(HangLimit));
        Assert.Contains("commit file", error.Message, StringComparison.Ordinal);
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);

        await using var reopened = StoreFactory.Open(options);
        foreach (int i in Enumerable.Range(0, 500).Concat(acknowledged))
        {
            Assert.Equal(Value(i, 1, 100), await ReadAsync(reopened, i));
        }
    }

    /// <summary>
    /// The commit file's write that FASTER forces once a checkpoint has let the write-ahead log's oldest segments go,
    /// after which FASTER deletes them. When that write fails the file still names the older start: the store faults
    /// first, so that, as everywhere once a store has faulted, no file is deleted, and a reopen has everything.
    /// </summary>
    [Fact]
    public async Task AFailedForcedWriteOfTheCommitFile_FaultsTheStore_DeletesNoSegment_AndAReopenHasEverything()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.Commit);
        var disk = new DiskFailure();
        var store = StoreFactory.OpenWithFailingCommitFile(options, disk, out FailingDiskCommitFile commits);
        var journal = (WriteAheadJournal)store.Journal;
        await Task.WhenAll(Enumerable.Range(0, 8).Select(w => Task.Run(async () =>
        {
            for (int i = w * 1_000; i < (w + 1) * 1_000; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1, 400));
            }
        })));
        await store.CheckpointAsync();
        Assert.True(journal.Log.BeginAddress >> 20 >= 1, $"the checkpoint let no whole segment of the write-ahead log go (begin address {journal.Log.BeginAddress})");

        string[] walSegments = WriteAheadLogSegments(temp.Path);
        disk.Fail();
        bool acknowledged;
        try
        {
            await store.UpsertAsync(Key(9_000), Value(9_000, 1, 400)).AsTask().WaitAsync(HangLimit);
            acknowledged = true;
        }
        catch (StoreFaultedException)
        {
            acknowledged = false;
        }

        Assert.True(commits.FailedForcedWrites > 0, "FASTER forced no write of the commit file");
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.UpsertAsync(Key(9_001), Value(9_001, 1, 400)).AsTask().WaitAsync(HangLimit));
        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);
        Assert.Equal(walSegments, WriteAheadLogSegments(temp.Path));

        await using var reopened = StoreFactory.Open(options);
        for (int i = 0; i < 8_000; i++)
        {
            Assert.Equal(Value(i, 1, 400), await ReadAsync(reopened, i));
        }

        Assert.Equal(acknowledged ? Value(9_000, 1, 400) : null, await ReadAsync(reopened, 9_000));
        Assert.Null(await ReadAsync(reopened, 9_001));
    }

    /// <summary>The write-ahead log's segment files in the store's directory, by name.</summary>
    private static string[] WriteAheadLogSegments(string directory) =>
        System.IO.Directory.GetFiles(System.IO.Path.Combine(directory, "store.wal"), WriteAheadLog.SegmentBaseName + ".*").Order(StringComparer.Ordinal).ToArray();

    /// <summary>Writes new keys from <paramref name="from"/> on, with the segment files failing, until the store faults; fails the test if it never does.</summary>
    private static async Task WriteUntilFaultedAsync(FasterRecordStore store, int from)
    {
        for (int next = from; next < from + 20_000; next++)
        {
            try
            {
                await store.UpsertAsync(Key(next), Value(next, 1, 400)).AsTask().WaitAsync(HangLimit);
            }
            catch (StoreFaultedException)
            {
                return;
            }
        }

        Assert.Fail("the failing segment files never faulted the store");
    }
}
