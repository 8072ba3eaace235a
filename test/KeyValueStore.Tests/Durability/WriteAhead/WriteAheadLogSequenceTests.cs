using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
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
/// The write-ahead log's sequence numbers: entries FASTER's scan skips without an error are reported by name, and the
/// numbering goes on across reopens without false alarms.
/// </summary>
/// <remarks>
/// FASTER's log with a checksum per entry frames each entry with an 8-byte checksum and a 4-byte length (negative for
/// its commit records), then the entry, padded to 4 bytes. A length of zero reads as the padding at a page's end: the
/// scan goes on at the next page. With these options a segment file holds one 1 MB page of the log.
/// </remarks>
public class WriteAheadLogSequenceTests
{
    private const int PageSize = 1 << 20;
    private const int TornTailDroppedEvent = 30;

    [Fact]
    public async Task AnEntryHeaderReadingAsZero_InThePageBeforeOthers_IsReportedByName_AndNothingIsChanged()
    {
        using var image = new TempDirectory();
        // About 1.7 MB of entries: the log's first page fills, the second holds the rest.
        long committedUntil = await CrashImageAsync(image.Path, Enumerable.Range(0, 1_600), size: 1_000);
        Assert.True(committedUntil > PageSize + (PageSize / 4), "the log must run on into a second page");

        string segment = Segment(image.Path, 0);
        List<(int Offset, int Key)> entries = EntriesOnPage(segment, WalFraming.FirstAddress);
        Assert.True(entries.Count > 500, $"only {entries.Count} entries on the first page");
        ZeroFasterHeader(segment, entries[entries.Count / 2].Offset);
        AssertRefusedNamingTheSegment(image.Path, segment, "missing");
    }

    /// <summary>
    /// FASTER trusts the cookie length in a commit record on the page its recovery keeps in memory, and checksums that
    /// many bytes of a shorter array: one flipped bit there killed the process (the corruption soak, seed 424242). The
    /// record is refused by name before FASTER parses it.
    /// </summary>
    [Fact]
    public async Task ACommitRecordsCookieLength_Damaged_OnTheLastPage_IsReportedByName_InsteadOfCrashing()
    {
        using var image = new TempDirectory();
        long committedUntil = await CrashImageAsync(image.Path, Enumerable.Range(0, 300), size: 100);
        Assert.True(committedUntil < PageSize, "the log must fit its first page");

        string segment = Segment(image.Path, 0);
        List<int> commitRecords = CommitRecordsOnPage(segment, WalFraming.FirstAddress);
        Assert.True(commitRecords.Count > 10, $"only {commitRecords.Count} commit records");

        // Body: version (4), checksum (8), begin and until (8 each), commit number (8), iterator count (4), cookie length (4).
        int cookieLength = commitRecords[commitRecords.Count / 2] + WalFraming.HeaderSize + 40;
        Assert.True(BitConverter.ToInt32(File.ReadAllBytes(segment), cookieLength) > 0, "the commit record carries no cookie");
        FlipBitAt(segment, cookieLength + 2, 0x02);

        AssertRefusedNamingTheSegment(image.Path, segment, "commit record");
    }

    /// <summary>
    /// On the last page the scan reads, the jump to the next page takes it past the committed end, so it ends as a
    /// complete scan would: only the commit's count of entries shows the loss.
    /// </summary>
    [Fact]
    public async Task AnEntryHeaderReadingAsZero_OnTheLastPage_IsReportedByName()
    {
        using var image = new TempDirectory();
        long committedUntil = await CrashImageAsync(image.Path, Enumerable.Range(0, 300), size: 100);
        Assert.True(committedUntil < PageSize, "the log must fit its first page");

        string segment = Segment(image.Path, 0);
        List<(int Offset, int Key)> entries = EntriesOnPage(segment, WalFraming.FirstAddress);
        ZeroFasterHeader(segment, entries[entries.Count / 2].Offset);

        AssertRefusedNamingTheSegment(image.Path, segment, "missing");
    }

    /// <summary>The checkpoint records the sequence number at its position: damage to the first entry after it is seen too.</summary>
    [Fact]
    public async Task TheFirstEntryAfterTheCheckpoint_ReadingAsZero_IsReportedByName()
    {
        using var temp = new TempDirectory();
        using var image = new TempDirectory();
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            await WriteAsync(store, Enumerable.Range(0, 100), size: 100);
            await store.CheckpointAsync();
            await WriteAsync(store, Enumerable.Range(1_000, 100), size: 100);
            await CommitMetadataPastTheDamageAsync(store);
            CopyAsCrashImage(temp.Path, image.Path);
        }

        string segment = Segment(image.Path, 0);
        (int offset, _) = EntriesOnPage(segment, WalFraming.FirstAddress).First(entry => entry.Key >= 1_000);
        ZeroFasterHeader(segment, offset);

        AssertRefusedNamingTheSegment(image.Path, segment, "missing");
    }

    /// <summary>
    /// After the newest commit metadata, the same damage in the last commit is what a crash's torn flush leaves: a sector
    /// left as zeros on an entry header sends FASTER's recovery to the next page, where it finds the flush's commit
    /// record. Nothing of that flush was acknowledged, so the log ends before it, and the store opens.
    /// </summary>
    [Fact]
    public async Task AnEntryHeaderReadingAsZero_AfterTheNewestCommitMetadata_EndsTheLogThere_AndTheStoreOpens()
    {
        using var temp = new TempDirectory();
        using var beforeCrash = new TempDirectory();
        using var flushedLater = new TempDirectory();
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            await WriteAsync(store, Enumerable.Range(0, 100), size: 100);
            await CommitMetadataPastTheDamageAsync(store);
            CopyAsCrashImage(temp.Path, beforeCrash.Path);
            await WriteAsOneCommitAsync(store, Enumerable.Range(1_000, 1_600), size: 1_000, version: 2);
            Assert.True(store.WriteAheadLog!.CommittedUntilAddress > PageSize + (PageSize / 4), "the later entries must run on into a second page");
            CopyAsCrashImage(temp.Path, flushedLater.Path);
        }

        // The crash: the later flush reached the log's files, the newer commit metadata did not.
        CrashImage.CopyWriteAheadLogSegments(flushedLater.Path, beforeCrash.Path);

        string segment = Segment(beforeCrash.Path, 0);
        (int offset, _) = EntriesOnPage(segment, WalFraming.FirstAddress).First(entry => entry.Key >= 1_000);
        ZeroFasterHeader(segment, offset);
        var logger = new RecordingLogger();
        await using (var reopened = StoreFactory.Open(Options(beforeCrash.Path, DurabilityMode.Commit), logger))
        {
            Assert.Contains(TornTailDroppedEvent, logger.EventIds);
            for (int i = 0; i < 100; i++)
            {
                Assert.Equal(Value(i, 1, 100), await ReadAsync(reopened, i));
            }

            Assert.Null(await ReadAsync(reopened, 2_599));
            await reopened.UpsertAsync(Key(5_000), Value(5_000, 1));
        }

        await using var again = StoreFactory.Open(Options(beforeCrash.Path, DurabilityMode.Commit));
        Assert.Equal(Value(5_000, 1), await ReadAsync(again, 5_000));
        Assert.Equal(Value(42, 1, 100), await ReadAsync(again, 42));
    }

    /// <summary>
    /// Found by the power-cut soak (seed 1979940637, cycle 12): the torn flush began right after an earlier commit that
    /// completed but whose metadata a power cut kept off the disk, so only its commit record shows it. FASTER's scan steps
    /// over commit records without returning them; the damage was placed at the end of the last entry it returned, which
    /// is that commit record's start, and the record was counted as one of two "after" the damage. The store refused to
    /// open, every time. That commit's writes were acknowledged and must come back; the torn commit's must not.
    /// </summary>
    [Fact]
    public async Task AnEntryHeaderReadingAsZero_RightAfterACommitRecordTheMetadataMissed_EndsTheLogThere_AndKeepsThatCommit()
    {
        using var image = new TempDirectory();
        await CrashImageWithCommitsTheMetadataMissedAsync(image.Path, async store =>
        {
            // A commit that completes (acknowledged), then one that runs into the next page and is torn below.
            await WriteAsOneCommitAsync(store, Enumerable.Range(500, 10), size: 100, version: 1);
            await WriteAsOneCommitAsync(store, Enumerable.Range(1_000, 1_600), size: 1_000, version: 2);
            Assert.True(store.WriteAheadLog!.CommittedUntilAddress > PageSize + (PageSize / 4), "the torn commit must run on into a second page");
        });

        // A sector of the second commit's first page is lost, on the header of its first entry, which follows the first
        // commit's record.
        string segment = Segment(image.Path, 0);
        List<(int Offset, int Key)> entries = EntriesOnPage(segment, WalFraming.FirstAddress);
        (int offset, _) = entries.First(entry => entry.Key >= 1_000);
        Assert.Contains(offset - WalFraming.CommitRecordSize, CommitRecordsOnPage(segment, WalFraming.FirstAddress));
        ZeroFasterHeader(segment, offset);

        var logger = new RecordingLogger();
        await using var reopened = StoreFactory.Open(Options(image.Path, DurabilityMode.Commit), logger);
        Assert.Contains(TornTailDroppedEvent, logger.EventIds);
        for (int i = 500; i < 510; i++)
        {
            Assert.Equal(Value(i, 1, 100), await ReadAsync(reopened, i));
        }

        Assert.Equal(Value(42, 1, 100), await ReadAsync(reopened, 42));
        Assert.Null(await ReadAsync(reopened, 1_000));
        Assert.Null(await ReadAsync(reopened, 2_599));
    }

    /// <summary>
    /// Found by the corruption soak (seed 424242, a write-ahead log segment cut to 460,070 bytes): a cut after the newest
    /// commit metadata took the commits there with it, and the log simply ended earlier, so the store opened without
    /// acknowledged deletes. FASTER's writes leave whole sectors, so a length that is not is a cut, and refused by name.
    /// </summary>
    [Fact]
    public async Task ASegmentCutShort_InCommitsAfterTheNewestMetadata_IsReportedByName_NotOpenedWithoutThem()
    {
        using var image = new TempDirectory();
        await CrashImageWithCommitsTheMetadataMissedAsync(image.Path, store => WriteAsOneCommitAsync(store, Enumerable.Range(500, 10), size: 100, version: 1));

        // The segment is cut inside the commit's entries.
        string segment = Segment(image.Path, 0);
        (int offset, _) = EntriesOnPage(segment, WalFraming.FirstAddress).First(entry => entry.Key >= 500);
        using (var file = new FileStream(segment, FileMode.Open))
        {
            file.SetLength(offset + 7);
        }

        AssertRefusedNamingTheSegment(image.Path, segment, "cut short");
    }

    /// <summary>
    /// The same zeroed header after the newest commit metadata, but with more commits after it: commits run one at a time,
    /// so the later commit records prove the damaged entry's commit had completed, its bytes whole on disk. That is damage,
    /// not a tear, and the store refuses to open rather than drop the acknowledged writes after it.
    /// </summary>
    [Fact]
    public async Task AnEntryHeaderReadingAsZero_AfterTheNewestCommitMetadata_IsReported_WhenLaterCommitsFollowIt()
    {
        using var image = new TempDirectory();
        await CrashImageWithCommitsTheMetadataMissedAsync(image.Path, store => WriteAsync(store, Enumerable.Range(1_000, 1_600), size: 1_000, version: 2));

        string segment = Segment(image.Path, 0);
        (int offset, _) = EntriesOnPage(segment, WalFraming.FirstAddress).First(entry => entry.Key >= 1_000);
        ZeroFasterHeader(segment, offset);
        AssertRefusedNamingTheSegment(image.Path, segment, "two commits");
    }

    /// <summary>
    /// One flipped bit in the last write before a crash, after the newest commit metadata: FASTER's recovery stops at the
    /// entry, so its commit looks uncommitted. A crash tears whole sectors, leaving zeros; a sector with a changed bit is
    /// not that, so the store refuses to open rather than drop the acknowledged write.
    /// </summary>
    [Fact]
    public async Task AFlippedBitInTheLastCommitBeforeACrash_IsReported_NotDroppedAsATornTail()
    {
        using var temp = new TempDirectory();
        using var image = new TempDirectory();
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            await WriteAsync(store, Enumerable.Range(0, 100), size: 100);
            await CommitMetadataPastTheDamageAsync(store);
            await store.UpsertAsync(Key(7), Value(7, 2, 600));
            CopyAsCrashImage(temp.Path, image.Path);
        }

        // Whether or not the newest metadata covers the write (it is written at most every 10 ms), the store must refuse.
        string segment = Segment(image.Path, 0);
        FlipByteAt(segment, IndexOf(File.ReadAllBytes(segment), Value(7, 2).AsSpan(0, 19).ToArray()) + 40);
        AssertRefusedNamingTheSegment(image.Path, segment);
    }

    /// <summary>
    /// The scan steps over commit records without returning them. When a torn flush damages the entry right after an
    /// acknowledged commit that the newest metadata does not cover yet (metadata is written at most every 10 ms), the log
    /// must end at the damaged entry, not before that commit record: the write it acknowledged must come back. (The torn
    /// flush is the last commit: commits run one at a time, so one after it would show the damage is no tear.)
    /// </summary>
    [Fact]
    public async Task AWriteAcknowledgedAfterTheNewestCommitMetadata_ComesBack_WhenTheFlushAfterItIsTorn()
    {
        using var temp = new TempDirectory();
        using var metadataWritten = new TempDirectory();
        using var flushedLater = new TempDirectory();
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            await WriteAsync(store, Enumerable.Range(0, 100), size: 100);
            await CommitMetadataPastTheDamageAsync(store);
            CopyAsCrashImage(temp.Path, metadataWritten.Path);
            await store.UpsertAsync(Key(101), Value(101, 1, 100));
            await WriteAsOneCommitAsync(store, Enumerable.Range(1_000, 200), size: 2_000, version: 2);
            CopyAsCrashImage(temp.Path, flushedLater.Path);
        }

        // The crash: the commit metadata as it was before key 101 (its own metadata write skipped, as within 10 ms of the
        // last), the later flushes on disk, and one sector of the first later entry never written. The sector is all
        // filler ('#'), so FASTER's XOR checksum still passes and its recovery takes the commit records after it.
        CrashImage.CopyWriteAheadLogSegments(flushedLater.Path, metadataWritten.Path);

        string segment = Segment(metadataWritten.Path, 0);
        List<(int Offset, int Key)> entries = EntriesOnPage(segment, WalFraming.FirstAddress);
        int acknowledged = entries.FindIndex(entry => entry.Key == 101);
        Assert.True(entries[acknowledged + 1].Key >= 1_000, "the first later entry must follow key 101's");
        int value = entries[acknowledged + 1].Offset + WalFraming.HeaderSize + WalFragment.HeaderSize + 9 + sizeof(int) + "value-000000-v0002-".Length;
        int sector = (value + 511) / 512 * 512;
        byte[] bytes = File.ReadAllBytes(segment);
        Assert.True(bytes.AsSpan(sector, 512).IndexOfAnyExcept((byte)'#') < 0, "the sector chosen is not all filler");
        bytes.AsSpan(sector, 512).Clear();
        File.WriteAllBytes(segment, bytes);

        var logger = new RecordingLogger();
        await using var reopened = StoreFactory.Open(Options(metadataWritten.Path, DurabilityMode.Commit), logger);
        Assert.Contains(TornTailDroppedEvent, logger.EventIds);
        Assert.Equal(Value(101, 1, 100), await ReadAsync(reopened, 101));
        Assert.Equal(Value(42, 1, 100), await ReadAsync(reopened, 42));
    }

    /// <summary>
    /// Commits run one at a time: while one commit's flush is held up by the disk, a second commit (a checkpoint's, say)
    /// writes nothing, even when its entries start a new page, which FASTER alone would flush at once. Recovery relies on
    /// it: a commit record on disk proves that the commit before it completed (<see cref="WalTearCheck"/>).
    /// </summary>
    [Fact]
    public async Task ASecondCommit_WritesNothing_UntilTheFirstIsDurable()
    {
        using var temp = new TempDirectory();
        FaultInjectingDevice? device = null;
        StoreSettings settings = StoreSettingsValidator.Validate(Options(temp.Path, DurabilityMode.Commit)) with
        {
            WrapDevice = (inner, role) => role == DeviceRole.WriteAheadLog ? device = new FaultInjectingDevice(inner) : inner,
        };
        await using var store = StoreOpener.Open(settings, NullLogger.Instance);
        WriteAheadLog log = store.WriteAheadLog!;
        device!.HoldWrites();
        Task first = store.UpsertAsync(Key(1), Value(1, 1)).AsTask();
        Task? second = null;
        try
        {
            await Eventually.TrueAsync(() => device.HeldWrites > 0, () => "the first commit never reached the disk");
            int heldForFirst = device.HeldWrites;
            while (log.TailAddress < PageSize + (PageSize / 4))
            {
                await log.AppendAsync(Key(2), Value(2, 1, 60_000), isDelete: false);
            }

            second = log.CommitAsync().AsTask();
            await Task.Delay(200);
            Assert.Equal(heldForFirst, device.HeldWrites);
            Assert.False(second.IsCompleted);
        }
        finally
        {
            device.ReleaseWrites();
        }

        await Task.WhenAll(first, second).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(log.TailAddress, log.CommittedUntilAddress);
    }

    /// <summary>
    /// A batch larger than the log's memory (8 MB), while the disk holds the log's writes back: the memory fills with
    /// pages not yet flushed, the batch's next piece waits for a commit outside the append lock, and once the disk goes
    /// on, every piece keeps its place in the numbering.
    /// </summary>
    [Fact]
    public async Task ABatchLargerThanTheLogsMemory_WaitsForTheDisk_AndComesBackWhole_AmongConcurrentWrites()
    {
        using var temp = new TempDirectory();
        using var image = new TempDirectory();
        FaultInjectingDevice? device = null;

        // 4 MB segments: the log then asks for a checkpoint only at 16 MB, and the reopened store replays the whole batch.
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.Commit);
        options.SegmentSizeBits = 22;
        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            WrapDevice = (inner, role) => role == DeviceRole.WriteAheadLog ? device = new FaultInjectingDevice(inner) : inner,
        };
        var batch = Enumerable.Range(0, 12_000).Select(i => BatchWrite.Upsert(Key(i), Value(i, 2, 1_000))).ToList();
        await using (var store = StoreOpener.Open(settings, NullLogger.Instance))
        {
            device!.HoldWrites();
            Task others = WriteAsync(store, Enumerable.Range(20_000, 400), size: 100);
            Task written = store.ApplyBatchAsync(batch).AsTask();
            try
            {
                // A failed append leaves the log's tail at the start of the page it could not have.
                await Eventually.TrueAsync(() => store.WriteAheadLog!.TailAddress >= 8 * PageSize, () => $"the log's memory never filled (tail {store.WriteAheadLog!.TailAddress})");
                Assert.False(written.IsCompleted);
            }
            finally
            {
                device.ReleaseWrites();
            }

            await Task.WhenAll(written, others).WaitAsync(TimeSpan.FromSeconds(60));
            Assert.Equal(0, store.Checkpointer!.CheckpointCount);
            CopyAsCrashImage(temp.Path, image.Path);
        }

        options.LogDirectory = image.Path;
        await using var recovered = StoreFactory.Open(options);
        for (int i = 0; i < 12_000; i += 7)
        {
            Assert.Equal(Value(i, 2, 1_000), await ReadAsync(recovered, i));
        }

        for (int i = 20_000; i < 20_400; i++)
        {
            Assert.Equal(Value(i, 1, 100), await ReadAsync(recovered, i));
        }
    }

    [Fact]
    public async Task TheNumbering_GoesOnAcrossReopens_AndEveryAcknowledgedWriteComesBack()
    {
        using var first = new TempDirectory();
        using var second = new TempDirectory();
        using var third = new TempDirectory();
        var expected = new Dictionary<int, byte[]?>();
        await using (var store = StoreFactory.Open(Options(first.Path, DurabilityMode.Commit)))
        {
            await WriteAsync(store, Enumerable.Range(0, 200), size: 100);
            Enumerable.Range(0, 200).ToList().ForEach(i => expected[i] = Value(i, 1, 100));
            CopyAsCrashImage(first.Path, second.Path);
        }

        // Reopened from a crash: no checkpoint, so the next replay runs over the entries of both lives of the log.
        await using (var store = StoreFactory.Open(Options(second.Path, DurabilityMode.Commit)))
        {
            await WriteAsync(store, Enumerable.Range(100, 200), size: 100, version: 2);
            Enumerable.Range(100, 200).ToList().ForEach(i => expected[i] = Value(i, 2, 100));
            CopyAsCrashImage(second.Path, third.Path);
        }

        // Closed cleanly (a checkpoint at the log's tail), reopened, written to, crashed.
        await using (var store = StoreFactory.Open(Options(third.Path, DurabilityMode.Commit)))
        {
            await AssertContentsAsync(store, expected);
        }

        using var fourth = new TempDirectory();
        await using (var store = StoreFactory.Open(Options(third.Path, DurabilityMode.Commit)))
        {
            await WriteAsync(store, Enumerable.Range(250, 100), size: 100, version: 3);
            Enumerable.Range(250, 100).ToList().ForEach(i => expected[i] = Value(i, 3, 100));
            CopyAsCrashImage(third.Path, fourth.Path);
        }

        await using var recovered = StoreFactory.Open(Options(fourth.Path, DurabilityMode.Commit));
        await AssertContentsAsync(recovered, expected);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AStoreReopenedManyTimes_WithNoWritesBetween_ReplaysCleanly(bool closedCleanly)
    {
        var directories = new List<TempDirectory> { new() };
        var expected = new Dictionary<int, byte[]?>();
        try
        {
            await using (var store = StoreFactory.Open(Options(directories[^1].Path, DurabilityMode.Commit)))
            {
                await WriteAsync(store, Enumerable.Range(0, 50), size: 100);
                Enumerable.Range(0, 50).ToList().ForEach(i => expected[i] = Value(i, 1, 100));
                CopyAsCrashImage(directories[^1].Path, NewDirectory(directories));
            }

            // Crashed each time: the log is never checkpointed, every open replays it all. Or closed cleanly each time.
            for (int reopen = 0; reopen < 6; reopen++)
            {
                string current = directories[^1].Path;
                await using var store = StoreFactory.Open(Options(current, DurabilityMode.Commit));
                if (!closedCleanly)
                {
                    CopyAsCrashImage(current, NewDirectory(directories));
                }
            }

            await using (var store = StoreFactory.Open(Options(directories[^1].Path, DurabilityMode.Commit)))
            {
                await AssertContentsAsync(store, expected);
                await WriteAsync(store, Enumerable.Range(50, 10), size: 100);
                Enumerable.Range(50, 10).ToList().ForEach(i => expected[i] = Value(i, 1, 100));
                CopyAsCrashImage(directories[^1].Path, NewDirectory(directories));
            }

            await using var recovered = StoreFactory.Open(Options(directories[^1].Path, DurabilityMode.Commit));
            await AssertContentsAsync(recovered, expected);
        }
        finally
        {
            directories.ForEach(directory => directory.Dispose());
        }
    }

    /// <summary>Adds a new directory, for the next crash image, and returns its path.</summary>
    /// <summary>
    /// A crash image of a Commit-mode store whose newest commit metadata covers 100 entries of 100 bytes (keys 0 to 99),
    /// and whose commits in <paramref name="afterTheMetadata"/> reached the log's files but not the metadata: the crash came
    /// before the next metadata write.
    /// </summary>
    private static async Task CrashImageWithCommitsTheMetadataMissedAsync(string image, Func<FasterRecordStore, Task> afterTheMetadata)
    {
        using var temp = new TempDirectory();
        string metadata = Path.Combine("store.wal", "commits");
        byte[] metadataBefore;
        await using (var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
        {
            await WriteAsync(store, Enumerable.Range(0, 100), size: 100);
            await CommitMetadataPastTheDamageAsync(store);
            metadataBefore = File.ReadAllBytes(Path.Combine(temp.Path, metadata));
            await afterTheMetadata(store);
            CopyAsCrashImage(temp.Path, image);
        }

        File.WriteAllBytes(Path.Combine(image, metadata), metadataBefore);
    }

    /// <summary>
    /// Writes <paramref name="keys"/> to a new Commit-mode store, commits metadata past them, and copies its files into
    /// <paramref name="image"/> as a crash would leave them, with the store still open. Returns the log's committed end.
    /// </summary>
    private static async Task<long> CrashImageAsync(string image, IEnumerable<int> keys, int size)
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit));
        await WriteAsync(store, keys, size);
        await CommitMetadataPastTheDamageAsync(store);
        CopyAsCrashImage(temp.Path, image);
        return store.WriteAheadLog!.CommittedUntilAddress;
    }

    private static string NewDirectory(List<TempDirectory> directories)
    {
        directories.Add(new TempDirectory());
        return directories[^1].Path;
    }

    private static async Task WriteAsync(FasterRecordStore store, IEnumerable<int> keys, int size, int version = 1)
    {
        int[] all = keys.ToArray();
        await Task.WhenAll(Enumerable.Range(0, 8).Select(async worker =>
        {
            for (int i = worker; i < all.Length; i += 8)
            {
                await store.UpsertAsync(Key(all[i]), Value(all[i], version, size));
            }
        }));
    }

    /// <summary>One atomic batch: its entries are made durable by one commit, as one flush would if a crash tore it.</summary>
    private static async Task WriteAsOneCommitAsync(FasterRecordStore store, IEnumerable<int> keys, int size, int version) =>
        await store.ApplyBatchAsync(keys.Select(i => BatchWrite.Upsert(Key(i), Value(i, version, size))).ToList());

    /// <summary>
    /// Commit metadata is written at most every 10 ms: one more commit after that, so the metadata covers the entry the
    /// test damages (damage after the newest metadata is a crash's torn tail, <see cref="WalCommitFile"/>).
    /// </summary>
    private static async Task CommitMetadataPastTheDamageAsync(FasterRecordStore store)
    {
        await Task.Delay(WalCommitFile.DefaultMinimumInterval * 3);
        await store.UpsertAsync(Key(-1), Value(-1, 1));
    }

    /// <summary>
    /// Opens the damaged image and expects it refused: a <see cref="StoreFileCorruptedException"/> naming
    /// <paramref name="segment"/> (its problem mentioning <paramref name="problemMentions"/>, when given), and every file
    /// that holds data as it was. FASTER may open an empty segment file ahead of the log's tail.
    /// </summary>
    private static void AssertRefusedNamingTheSegment(string image, string segment, string? problemMentions = null)
    {
        var before = Snapshot(image);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(Options(image, DurabilityMode.Commit)));

        Assert.Equal(segment, error.FilePath);
        if (problemMentions is not null)
        {
            Assert.Contains(problemMentions, error.Problem, StringComparison.Ordinal);
        }

        Assert.Empty(before.Except(Snapshot(image)));
    }

    private static string Segment(string directory, int number) => Path.Combine(directory, "store.wal", $"log.{number}");

    /// <summary>Where each commit record of the page at the start of <paramref name="segment"/> begins, from <paramref name="from"/>.</summary>
    private static List<int> CommitRecordsOnPage(string segment, int from)
    {
        byte[] bytes = File.ReadAllBytes(segment);
        var records = new List<int>();
        for (int offset = from; offset + WalFraming.HeaderSize <= Math.Min(bytes.Length, PageSize);)
        {
            int length = BitConverter.ToInt32(bytes, offset + 8);
            if (length == 0)
            {
                break;
            }

            if (length < 0)
            {
                records.Add(offset);
            }

            offset += WalFraming.HeaderSize + ((Math.Abs(length) + 3) & ~3);
        }

        return records;
    }

    /// <summary>The entries of the page at the start of <paramref name="segment"/>, from <paramref name="from"/>: where each begins, and its key.</summary>
    private static List<(int Offset, int Key)> EntriesOnPage(string segment, int from)
    {
        byte[] bytes = File.ReadAllBytes(segment);
        var entries = new List<(int Offset, int Key)>();
        int offset = from;
        while (offset + WalFraming.HeaderSize <= Math.Min(bytes.Length, PageSize))
        {
            int length = BitConverter.ToInt32(bytes, offset + 8);
            if (length == 0)
            {
                break;
            }

            if (length > 0)
            {
                // A transaction of one write: operation (1 byte), key length (4), value length (4), key.
                entries.Add((offset, BitConverter.ToInt32(bytes, offset + WalFraming.HeaderSize + WalFragment.HeaderSize + 9)));
            }

            offset += WalFraming.HeaderSize + ((Math.Abs(length) + 3) & ~3);
        }

        return entries;
    }

    /// <summary>Zeroes FASTER's checksum and length in front of the entry at <paramref name="offset"/>, as a zeroed sector would.</summary>
    private static void ZeroFasterHeader(string segment, int offset) => ZeroAt(segment, offset, WalFraming.HeaderSize);
}
