using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Durability;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// Commit mode's write-ahead log on real files: acknowledged writes come back from the log alone, replay starts where
/// the checkpoint ends, batches come back whole, and damage is reported by name. A "crash image" is a copy of an open
/// store's files once its writes are acknowledged; the crash harness (CrashRecoveryTests) kills real processes.
/// </summary>
public class WriteAheadLogTests
{
    private const int ReplayedEvent = 25;
    private const int RetiredEvent = 27;

    [Fact]
    public async Task AnUpsertCompletes_OnlyOnceTheLogHasCommittedIt_AndTakesNoCheckpoint()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit));
        WriteAheadLog log = store.WriteAheadLog!;

        for (int i = 0; i < 50; i++)
        {
            long tailBefore = log.TailAddress;
            await store.UpsertAsync(Key(i), Value(i, 1));

            // One writer: once acknowledged, everything it appended (its entry and the commit record after it) is committed.
            Assert.True(log.CommittedUntilAddress > tailBefore, $"upsert {i} completed before the log committed past {tailBefore}");
            Assert.Equal(log.TailAddress, log.CommittedUntilAddress);
        }

        Assert.Equal(0, store.Checkpointer!.CheckpointCount);
        Assert.True(log.CommitCount >= 50, $"{log.CommitCount} commits for 50 sequential writes");
    }

    [Fact]
    public async Task AcknowledgedWrites_ComeBackFromTheLogAlone_WhenNoCheckpointHoldsThem()
    {
        using var temp = new TempDirectory();
        using var image = new TempDirectory();
        var expected = new Dictionary<int, byte[]?>();
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            await Task.WhenAll(Enumerable.Range(0, 1_000).Select(async i => await store.UpsertAsync(Key(i), Value(i, 1, 100))));
            Enumerable.Range(0, 1_000).ToList().ForEach(i => expected[i] = Value(i, 1, 100));
            await Task.WhenAll(Enumerable.Range(0, 1_000).Where(i => i % 7 == 0).Select(async i => Assert.True(await store.DeleteAsync(Key(i)))));
            Enumerable.Range(0, 1_000).Where(i => i % 7 == 0).ToList().ForEach(i => expected[i] = null);
            var batch = Enumerable.Range(1_000, 40).Select(i => BatchWrite.Upsert(Key(i), Value(i, 2))).Append(BatchWrite.Delete(Key(1))).ToList();
            await store.ApplyBatchAsync(batch);
            Enumerable.Range(1_000, 40).ToList().ForEach(i => expected[i] = Value(i, 2));
            expected[1] = null;

            Assert.Equal(0, store.Checkpointer!.CheckpointCount);
            CopyAsCrashImage(temp.Path, image.Path);
        }

        await AssertRecoversAsync(image.Path, expected, replayLogMentions: "0 unacknowledged");
    }

    [Fact]
    public async Task Replay_StartsWhereTheCheckpointEnds()
    {
        using var temp = new TempDirectory();
        using var image = new TempDirectory();
        var expected = new Dictionary<int, byte[]?>();
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            for (int i = 0; i < 500; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1));
                expected[i] = Value(i, 1);
            }

            await store.CheckpointAsync();
            Assert.Equal(store.WriteAheadLog!.TailAddress, store.WriteAheadLog!.BeginAddress);
            for (int i = 0; i < 250; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 2));
                expected[i] = Value(i, 2);
            }

            for (int i = 250; i < 300; i++)
            {
                Assert.True(await store.DeleteAsync(Key(i)));
                expected[i] = null;
            }

            CopyAsCrashImage(temp.Path, image.Path);
        }

        await AssertRecoversAsync(image.Path, expected, replayLogMentions: ": 300 transactions, 300 writes");
    }

    [Fact]
    public async Task ABatchLargerThanOneLogEntry_ComesBackWhole_AmongConcurrentWrites()
    {
        using var temp = new TempDirectory();
        using var image = new TempDirectory();
        var batch = Enumerable.Range(0, 3_000).Select(i => BatchWrite.Upsert(Key(i), Value(i, 3, 100))).ToList();
        Assert.True(WalTransaction.SizeOf(batch) > 4 * WriteAheadLog.MaxFragmentPayload, "the batch must span several log entries");
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            Task others = Task.WhenAll(Enumerable.Range(10_000, 500).Select(async i => await store.UpsertAsync(Key(i), Value(i, 1))));
            await store.ApplyBatchAsync(batch);
            await others;
            CopyAsCrashImage(temp.Path, image.Path);
        }

        var logger = new RecordingLogger();
        await using var recovered = OpenCommitStore(image.Path, logger);

        for (int i = 0; i < 3_000; i++)
        {
            Assert.Equal(Value(i, 3, 100), await ReadAsync(recovered, i));
        }

        for (int i = 10_000; i < 10_500; i++)
        {
            Assert.Equal(Value(i, 1), await ReadAsync(recovered, i));
        }

        AssertReplayLogged(logger, ": 501 transactions, 3500 writes");
    }

    [Fact]
    public async Task TheLogsFiles_StayBounded_WithoutPeriodicCheckpoints()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Commit);
        await using var store = StoreFactory.Open(options);
        string logDirectory = store.WriteAheadLog!.Directory;
        const int Writes = 12_000;
        const int WritesPerSample = 64;
        int written = 0;
        int samples = 0;
        long mostSegments = 0;

        // Periodic checkpoints are an hour apart here; 1 MB log segments (the store's): write about 12 MB through the log.
        // The files are counted every 64 writes (about 64 KB of log, a sixteenth of a segment), whichever worker makes it,
        // so a log that grew past the bound is seen however the workers interleave.
        await Task.WhenAll(Enumerable.Range(0, 16).Select(async worker =>
        {
            for (int i = worker; i < Writes; i += 16)
            {
                await store.UpsertAsync(Key(i), Value(i, 1, 1_000));
                if (Interlocked.Increment(ref written) % WritesPerSample == 0)
                {
                    ConcurrentMax.RaiseTo(ref mostSegments, Directory.GetFiles(logDirectory, "log.*").Length);
                    Interlocked.Increment(ref samples);
                }
            }
        }));

        // A checkpoint is started once the log holds four segments; the next commit deletes what it held.
        Assert.Equal(Writes / WritesPerSample, samples);
        Assert.True(store.Checkpointer!.CheckpointCount >= 2, $"{store.Checkpointer!.CheckpointCount} checkpoints for 12 MB of log");
        Assert.True(mostSegments <= 8, $"the log had {mostSegments} segment files at once");
        for (int i = 0; i < 12_000; i += 997)
        {
            Assert.Equal(Value(i, 1, 1_000), await ReadAsync(store, i));
        }
    }

    /// <summary>
    /// What a crash can leave after the committed end: entries flushed but never committed, commit records among them,
    /// behind one that did not make it. The reopened log writes over the start of them. Here the stale entries run on
    /// into the log's next page (1 MB pages): without clearing them first, the next recovery's scan, which jumps from the
    /// zeros after the newer entries to the next page, ran on into them and replayed unacknowledged writes over
    /// acknowledged ones (keys 1,990 to 1,999 came back as v2, and keys never acknowledged came back).
    /// </summary>
    [Fact]
    public async Task WhatACrashLeftAfterTheCommittedEnd_IsClearedBeforeTheLogAppendsThere()
    {
        using var temp = new TempDirectory();
        using var beforeCrash = new TempDirectory();
        using var flushedLater = new TempDirectory();
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            for (int i = 0; i < 100; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1));
            }

            CopyAsCrashImage(temp.Path, beforeCrash.Path);

            // One batch, one commit: what a single flush torn by a crash would have held.
            await store.ApplyBatchAsync(Enumerable.Range(0, 2_000).Select(i => BatchWrite.Upsert(Key(i), Value(i, 2, 1_000))).ToList());
            CopyAsCrashImage(temp.Path, flushedLater.Path);
        }

        // The crash: the later entries reached the disk, but not the sector holding their commit record, so none of them
        // counts as committed.
        string walDirectory = CrashImage.CopyWriteAheadLogSegments(flushedLater.Path, beforeCrash.Path);

        string lastSegment = Directory.GetFiles(walDirectory, "log.*").Where(path => new FileInfo(path).Length > 0).OrderBy(path => int.Parse(Path.GetExtension(path)[1..], System.Globalization.CultureInfo.InvariantCulture)).Last();
        int lastByte = File.ReadAllBytes(lastSegment).AsSpan().LastIndexOfAnyExcept((byte)0);
        ZeroAt(lastSegment, lastByte & ~511, 512);
        var logger = new RecordingLogger();
        using var secondCrash = new TempDirectory();
        await using (var reopened = StoreFactory.Open(Options(beforeCrash.Path, DurabilityMode.Commit), logger))
        {
            Assert.Contains(28, logger.EventIds);
            Assert.Null(await ReadAsync(reopened, 1_995));
            for (int i = 1_990; i < 2_000; i++)
            {
                await reopened.UpsertAsync(Key(i), Value(i, 3));
            }

            CopyAsCrashImage(beforeCrash.Path, secondCrash.Path);
        }

        await using var recovered = StoreFactory.Open(Options(secondCrash.Path, DurabilityMode.Commit));
        for (int i = 0; i < 2_000; i++)
        {
            byte[]? expected = i < 100 ? Value(i, 1) : i >= 1_990 ? Value(i, 3) : null;
            Assert.Equal(expected, await ReadAsync(recovered, i));
        }
    }

    [Fact]
    public async Task AFlushTornByACrash_AfterTheNewestCommitMetadata_EndsTheLog_AndTheStoreOpens()
    {
        using var temp = new TempDirectory();
        using var beforeCrash = new TempDirectory();
        using var flushedLater = new TempDirectory();
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            for (int i = 0; i < 100; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1));
            }

            // Past the metadata interval, one more commit: the commit file then covers the first hundred.
            await Task.Delay(WalCommitFile.DefaultMinimumInterval * 3);
            await store.UpsertAsync(Key(100), Value(100, 1));
            CopyAsCrashImage(temp.Path, beforeCrash.Path);

            // One batch, one commit: a torn flush is always the last commit (commits run one at a time).
            await store.ApplyBatchAsync(Enumerable.Range(200, 1_000).Select(i => BatchWrite.Upsert(Key(i), Value(i, 2, 2_000))).ToList());
            CopyAsCrashImage(temp.Path, flushedLater.Path);
        }

        // The crash: the later flush reached the log's files, but not the newer commit metadata; and one sector of the
        // first later entry never made it. The sector is all filler ('#'), so FASTER's XOR checksum of the entry still
        // passes, and its recovery takes the commit records after it as committed.
        string walDirectory = CrashImage.CopyWriteAheadLogSegments(flushedLater.Path, beforeCrash.Path);

        string firstSegment = Path.Combine(walDirectory, "log.0");
        byte[] bytes = File.ReadAllBytes(firstSegment);
        int firstLaterValue = IndexOf(bytes, System.Text.Encoding.UTF8.GetBytes("-v0002-")) - "value-000000".Length;
        int sector = (firstLaterValue + "value-000000-v0002-".Length + 511) / 512 * 512;
        Assert.True(bytes.AsSpan(sector, 512).IndexOfAnyExcept((byte)'#') < 0, "the sector chosen is not all filler");
        bytes.AsSpan(sector, 512).Clear();
        File.WriteAllBytes(firstSegment, bytes);

        var logger = new RecordingLogger();
        await using (var reopened = StoreFactory.Open(Options(beforeCrash.Path, DurabilityMode.Commit), logger))
        {
            Assert.Contains(30, logger.EventIds);
            for (int i = 0; i <= 100; i++)
            {
                Assert.Equal(Value(i, 1), await ReadAsync(reopened, i));
            }

            for (int i = 200; i < 1_200; i++)
            {
                byte[]? value = await ReadAsync(reopened, i);
                Assert.True(value is null || value.AsSpan().SequenceEqual(Value(i, 2, 2_000)), $"key {i} came back with bytes nobody wrote");
            }

            await reopened.UpsertAsync(Key(5_000), Value(5_000, 1));
        }

        await using var again = StoreFactory.Open(Options(beforeCrash.Path, DurabilityMode.Commit));
        Assert.Equal(Value(5_000, 1), await ReadAsync(again, 5_000));
        Assert.Equal(Value(42, 1), await ReadAsync(again, 42));
    }

    [Fact]
    public async Task ADamagedLogEntry_IsReportedByName_AndNothingIsChanged()
    {
        using var temp = new TempDirectory();
        using var image = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Commit);
        await using (var store = StoreFactory.Open(options))
        {
            await store.CheckpointAsync();
            for (int i = 0; i < 200; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1, 100));
            }

            // Commit metadata is written at most every 10 ms: wait past that, so a later commit's metadata covers the
            // entry damaged below (damage after the latest metadata reads as the end of the log; WalCommitFile says why).
            await Task.Delay(WalCommitFile.DefaultMinimumInterval * 3);
            await store.UpsertAsync(Key(1_000), Value(1_000, 1));
            CopyAsCrashImage(temp.Path, image.Path);
        }

        string segment = Path.Combine(image.Path, "store.wal", "log.0");
        FlipByteAt(segment, IndexOf(File.ReadAllBytes(segment), Value(42, 1, 100)) + 50);
        var before = Snapshot(image.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(Options(image.Path, DurabilityMode.Commit)));

        Assert.Equal(segment, error.FilePath);
        Assert.Contains("write-ahead log entry", error.Problem, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(image.Path));
    }

    [Fact]
    public async Task ADamagedLogPositionInTheCheckpoint_IsReportedByName_AndNothingIsChanged()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Commit);
        await DamagedFilesTests.WriteAndCloseAsync(options, 100);
        string metadata = Directory.GetFiles(Path.Combine(temp.Path, "store.checkpoints"), "info.dat.0", SearchOption.AllDirectories).Single();

        // The position is the base64 text FASTER appends after the metadata's fields; change one of its characters.
        byte[] bytes = File.ReadAllBytes(metadata);
        int end = sizeof(int) + BitConverter.ToInt32(bytes, 0);
        int inPosition = end - 12;
        bytes[inPosition] = (byte)(bytes[inPosition] == 'A' ? 'B' : 'A');
        File.WriteAllBytes(metadata, bytes);
        var before = Snapshot(temp.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(metadata, error.FilePath);
        Assert.Contains("write-ahead log position", error.Problem, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(temp.Path));
    }

    [Fact]
    public async Task DamagedCommitSlots_AreReportedByName_AndNothingIsChanged()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Commit);
        await DamagedFilesTests.WriteAndCloseAsync(options, 100);
        string commits = Path.Combine(temp.Path, "store.wal", "commits");
        FlipByteAt(commits, 20);
        FlipByteAt(commits, WalCommitFile.SlotSize + 20);
        var before = Snapshot(temp.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(commits, error.FilePath);
        Assert.Equal(before, Snapshot(temp.Path));
    }

    [Fact]
    public async Task AMissingLog_ThatTheCheckpointReliesOn_IsReportedByName_AndNothingIsCreated()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Commit);
        await DamagedFilesTests.WriteAndCloseAsync(options, 100);
        string logDirectory = Path.Combine(temp.Path, "store.wal");
        Directory.Delete(logDirectory, recursive: true);
        var before = Snapshot(temp.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(logDirectory, error.FilePath);
        Assert.False(Directory.Exists(logDirectory));
        Assert.Equal(before, Snapshot(temp.Path));
    }

    [Fact]
    public async Task ACommitStore_ReopenedInCheckpointMode_KeepsItsAcknowledgedWrites_AndRetiresTheLog()
    {
        using var temp = new TempDirectory();
        using var image = new TempDirectory();
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            await Task.WhenAll(Enumerable.Range(0, 300).Select(async i => await store.UpsertAsync(Key(i), Value(i, 1))));
            CopyAsCrashImage(temp.Path, image.Path);
        }

        var logger = new RecordingLogger();
        await using (var reopened = StoreFactory.Open(Options(image.Path, DurabilityMode.Checkpoint), logger))
        {
            Assert.Null(reopened.WriteAheadLog);
            Assert.False(Directory.Exists(Path.Combine(image.Path, "store.wal")));
            Assert.Contains(RetiredEvent, logger.EventIds);
            for (int i = 0; i < 300; i++)
            {
                Assert.Equal(Value(i, 1), await ReadAsync(reopened, i));
            }
        }

        await using var again = StoreFactory.Open(Options(image.Path, DurabilityMode.Checkpoint));
        for (int i = 0; i < 300; i++)
        {
            Assert.Equal(Value(i, 1), await ReadAsync(again, i));
        }
    }

    private static FasterRecordStore OpenCommitStore(string directory, RecordingLogger logger) =>
        StoreFactory.Open(Options(directory, DurabilityMode.Commit), logger);

    /// <summary>Opens the crash image in Commit mode and checks it holds exactly <paramref name="expected"/>, its replay logged with <paramref name="replayLogMentions"/>.</summary>
    private static async Task AssertRecoversAsync(string image, Dictionary<int, byte[]?> expected, string replayLogMentions)
    {
        var logger = new RecordingLogger();
        await using var recovered = OpenCommitStore(image, logger);
        await AssertContentsAsync(recovered, expected);
        AssertReplayLogged(logger, replayLogMentions);
    }

    /// <summary>Asserts the replay event (EventId 25) was logged with <paramref name="expected"/> in its message.</summary>
    private static void AssertReplayLogged(RecordingLogger logger, string expected) =>
        Assert.Contains(logger.Events, e => e.Id.Id == ReplayedEvent && e.Message.Contains(expected, StringComparison.Ordinal));
}
