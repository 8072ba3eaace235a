using System;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Durability;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// Damage FASTER's record layout cannot show: a zeroed sector reads as the empty end of a page and a cleared valid bit
/// hides a record, so keys vanished silently (the corruption soak's open classes). Every sector a checkpoint holds is
/// checked at open against the checksum taken when it was written (<see cref="SectorChecksums"/>).
/// </summary>
public class SectorChecksumTests
{
    private const int Records = 2_000;

    // A record of a 4-byte key and a 200-byte value: header (8), key length and key (8), value length (4), value, to 8 bytes.
    private const int RecordBytes = 224;

    /// <summary>
    /// A record zeroed whole looks exactly like the zeroed gaps FASTER leaves in pages itself: the record walk passes
    /// over it, and only the sector's checksum tells.
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AZeroedRecord_IsRefusedAtOpen_ByItsSectorChecksum(bool valueChecksums)
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        options.ValueChecksums = valueChecksums;
        await DamagedFilesTests.WriteAndCloseAsync(options, Records);
        (string segment, int recordAt) = FindRecord(temp.Path, 42);
        ZeroAt(segment, recordAt, RecordBytes);
        var before = Snapshot(temp.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        long sector = recordAt - (recordAt % SectorChecksums.SectorSize);
        Assert.Equal(segment, error.FilePath);
        Assert.Contains($"sector at log address {sector}", error.Problem, StringComparison.Ordinal);
        Assert.Contains("store.sums.0", error.Problem, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(temp.Path));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AZeroedSector_IsRefusedAtOpen_NamingTheSegment(bool valueChecksums)
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        options.ValueChecksums = valueChecksums;
        await DamagedFilesTests.WriteAndCloseAsync(options, Records);
        (string segment, int recordAt) = FindRecord(temp.Path, 42);
        ZeroAt(segment, recordAt - (recordAt % SectorChecksums.SectorSize), SectorChecksums.SectorSize);

        // The record walk or a record's seal may name the damage first; either way the segment is refused by name.
        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(segment, error.FilePath);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AClearedValidBit_IsRefusedAtOpen_InsteadOfHidingTheRecord(bool valueChecksums)
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        options.ValueChecksums = valueChecksums;
        await DamagedFilesTests.WriteAndCloseAsync(options, Records);
        (string segment, int recordAt) = FindRecord(temp.Path, 42);

        // The valid bit is bit 56 of the little-endian RecordInfo: bit 0 of its eighth byte.
        FlipBitAt(segment, recordAt + 7, 0x01);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(segment, error.FilePath);
        Assert.Contains("does not match the checksum recorded for it", error.Problem, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AMissingChecksumFile_IsRefusedByName()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Commit);
        await DamagedFilesTests.WriteAndCloseAsync(options, Records);
        string checksums = new LogFileLayout(temp.Path, "store").SectorChecksumPath(0);
        File.Delete(checksums);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(checksums, error.FilePath);
    }

    [Fact]
    public async Task ADamagedChecksumFile_IsRefused_NamingBothFiles()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await DamagedFilesTests.WriteAndCloseAsync(options, Records);
        string checksums = new LogFileLayout(temp.Path, "store").SectorChecksumPath(0);
        FlipBitAt(checksums, 4 * 10, 0x10);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.EndsWith("store.log.0", error.FilePath, StringComparison.Ordinal);
        Assert.Contains(checksums, error.Problem, StringComparison.Ordinal);
    }

    /// <summary>
    /// The sector holding a checkpoint's tail is written again after the checkpoint, so its bytes before the tail are
    /// checked against the copy in the checkpoint record; a flipped bit there is refused like any other.
    /// </summary>
    [Fact]
    public async Task DamageBeforeTheTail_InTheSectorHoldingIt_IsRefused()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        var layout = new LogFileLayout(temp.Path, "store");
        int count = Records;
        RecoveryPoint point;
        do
        {
            // A tail on a sector boundary has no partial sector to check: write on until the tail is inside one.
            await DamagedFilesTests.WriteAndCloseAsync(options, count++);
            point = CheckpointInspector.FindLatest(layout, out _)!;
        }
        while (point.FinalLogicalAddress % SectorChecksums.SectorSize < 16);

        Assert.NotNull(CheckpointRecord.ReadIfExists(layout.CheckpointRecordPath)!.TailSectorFor(point.Token, layout.CheckpointRecordPath));
        long tail = point.FinalLogicalAddress;
        string segment = layout.SegmentPath(tail >> options.SegmentSizeBits);
        FlipBitAt(segment, (tail & ((1L << options.SegmentSizeBits) - 1)) - 2, 0x04);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(segment, error.FilePath);
        Assert.Contains(layout.CheckpointRecordPath, error.Problem, StringComparison.Ordinal);
    }

    /// <summary>
    /// The checksums reach the disk before FASTER writes a checkpoint's metadata. When they cannot, the checkpoint fails
    /// and the store faults; the previous checkpoint stays the one a reopen recovers, with everything it holds.
    /// </summary>
    [Fact]
    public async Task AChecksumFileThatCannotBeWritten_FailsTheCheckpoint_AndAReopenRecoversThePreviousOne()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        var layout = new LogFileLayout(temp.Path, "store");
        string checksums = layout.SectorChecksumPath(0);
        byte[] kept;
        await using (var store = StoreFactory.Open(options))
        {
            for (int i = 0; i < 100; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1, 200));
            }

            await store.CheckpointAsync();

            // A directory where the file must be: every write of it now fails, as on a broken disk.
            kept = File.ReadAllBytes(checksums);
            File.Delete(checksums);
            Directory.CreateDirectory(checksums);
            await store.UpsertAsync(Key(100), Value(100, 1, 200));

            await Assert.ThrowsAsync<StoreFaultedException>(() => store.CheckpointAsync());
            await Assert.ThrowsAsync<StoreFaultedException>(async () => await store.UpsertAsync(Key(101), Value(101, 1, 200)));
        }

        Directory.Delete(checksums);
        File.WriteAllBytes(checksums, kept);
        await using (var store = StoreFactory.Open(options))
        {
            for (int i = 0; i < 100; i++)
            {
                Assert.Equal(Value(i, 1, 200), await ReadAsync(store, i));
            }
        }
    }

    private static (string Segment, int RecordAt) FindRecord(string directory, int key)
    {
        // Record layout: RecordInfo (8 bytes), key length (4), key (4), value length (4), value.
        byte[] needle = Value(key, 1, 200).AsSpan(0, 20).ToArray();
        string segment = Directory.GetFiles(directory, "store.log.*").Single(path => IndexOf(File.ReadAllBytes(path), needle) >= 0);
        int recordAt = IndexOf(File.ReadAllBytes(segment), needle) - 20;
        Assert.Equal(key, BitConverter.ToInt32(File.ReadAllBytes(segment), recordAt + 12));
        return (segment, recordAt);
    }
}
