using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>Damaged, truncated or missing files: a typed exception naming the file, the files left as they were, never wrong data.</summary>
public class DamagedFilesTests
{
    [Fact]
    public async Task DamagedCheckpointMetadata_IsReportedByName_AndNothingIsChanged()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await WriteAndCloseAsync(options, 500);
        string metadata = Directory.GetFiles(Path.Combine(temp.Path, "store.checkpoints", "cpr-checkpoints"), "info.dat.0", SearchOption.AllDirectories).Single();
        OverwriteMetadataBody(metadata);
        var before = Snapshot(temp.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(metadata, error.FilePath);
        Assert.Contains(metadata, error.Message, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(temp.Path));
    }

    [Fact]
    public async Task TruncatedSegment_IsReportedByName_AndNothingIsChanged()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await WriteAndCloseAsync(options, 5_000);
        string segment = Path.Combine(temp.Path, "store.log.0");
        using (var file = new FileStream(segment, FileMode.Open))
        {
            file.SetLength(4_096);
        }

        var before = Snapshot(temp.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(segment, error.FilePath);
        Assert.Equal(before, Snapshot(temp.Path));
    }

    [Fact]
    public async Task MissingSegment_IsReportedByName()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await WriteAndCloseAsync(options, 5_000);
        string segment = Path.Combine(temp.Path, "store.log.0");
        File.Delete(segment);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(segment, error.FilePath);
    }

    [Fact]
    public async Task AnIncompleteNewerCheckpoint_IsSkippedWithAWarning_AndTheCompletedOneIsRecovered()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await WriteAndCloseAsync(options, 500);

        // What a crash in the middle of a checkpoint leaves: its folder, with the metadata file created but not yet written.
        string leftover = Path.Combine(temp.Path, "store.checkpoints", "cpr-checkpoints", Guid.NewGuid().ToString(), "info.dat.0");
        Directory.CreateDirectory(Path.GetDirectoryName(leftover)!);
        File.WriteAllBytes(leftover, []);
        var logger = new RecordingLogger();

        await using var store = StoreFactory.Open(options, logger);

        Assert.Contains(logger.Events, e => e.Id.Id == 22 && e.Message.Contains(leftover, StringComparison.Ordinal));
        Assert.Contains(21, logger.EventIds);
        for (int i = 0; i < 500; i++)
        {
            Assert.Equal(Value(i, 1, 200), await ReadAsync(store, i));
        }
    }

    [Fact]
    public async Task ANewerCheckpointWhoseMetadataAPowerCutTore_IsSkippedWithAWarning_AndTheRecordedOneIsRecovered()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await WriteAndCloseAsync(options, 500);

        // What a power cut during a checkpoint's one metadata write can leave: the write torn, its first sector (with the
        // length) never written, the rest on disk.
        string folder = Path.Combine(temp.Path, "store.checkpoints", "cpr-checkpoints");
        string recorded = Directory.GetFiles(folder, "info.dat.0", SearchOption.AllDirectories).Single();
        string torn = Path.Combine(folder, Guid.NewGuid().ToString(), "info.dat.0");
        Directory.CreateDirectory(Path.GetDirectoryName(torn)!);
        byte[] metadata = File.ReadAllBytes(recorded);
        metadata.AsSpan(0, Math.Min(512, metadata.Length)).Clear();
        File.WriteAllBytes(torn, metadata);
        var logger = new RecordingLogger();

        await using var store = StoreFactory.Open(options, logger);

        Assert.Contains(logger.Events, e => e.Id.Id == 22 && e.Message.Contains(torn, StringComparison.Ordinal));
        for (int i = 0; i < 500; i++)
        {
            Assert.Equal(Value(i, 1, 200), await ReadAsync(store, i));
        }
    }

    [Theory]
    [InlineData(DurabilityMode.Checkpoint, "deleted")]
    [InlineData(DurabilityMode.Checkpoint, "emptied")]
    [InlineData(DurabilityMode.Commit, "deleted")]
    [InlineData(DurabilityMode.Commit, "emptied")]
    public async Task TheLatestCheckpointsMetadata_DeletedOrEmptied_IsReportedByName_NeverOpensAnEmptyStore(DurabilityMode mode, string damage)
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, mode);
        await WriteAndCloseAsync(options, 500);
        string metadata = Directory.GetFiles(Path.Combine(temp.Path, "store.checkpoints", "cpr-checkpoints"), "info.dat.0", SearchOption.AllDirectories).Single();
        if (damage == "deleted")
        {
            File.Delete(metadata);
        }
        else
        {
            File.WriteAllBytes(metadata, []);
        }

        var before = Snapshot(temp.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(metadata, error.FilePath);
        Assert.Equal(before, Snapshot(temp.Path));
    }

    [Fact]
    public async Task OneFlippedBit_AnywhereInTheLatestCheckpointsMetadata_IsReportedByName_AndNothingIsChanged()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await WriteAndCloseAsync(options, 200);
        string metadata = Directory.GetFiles(Path.Combine(temp.Path, "store.checkpoints", "cpr-checkpoints"), "info.dat.0", SearchOption.AllDirectories).Single();
        byte[] original = File.ReadAllBytes(metadata);
        int length = BitConverter.ToInt32(original, 0);
        var random = new Random(17);

        // Every line of the metadata once (FASTER's own checksum leaves some fields out), then random bytes.
        var offsets = new List<int>();
        for (int offset = sizeof(int); offset < sizeof(int) + length; offset++)
        {
            if (offset == sizeof(int) || original[offset - 1] == (byte)'\n')
            {
                offsets.Add(offset);
            }
        }

        offsets.AddRange(Enumerable.Range(0, 20).Select(_ => random.Next(sizeof(int), sizeof(int) + length)));
        foreach (int offset in offsets)
        {
            byte[] damaged = (byte[])original.Clone();
            damaged[offset] ^= (byte)(1 << random.Next(8));
            File.WriteAllBytes(metadata, damaged);

            var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

            Assert.Equal(metadata, error.FilePath);
        }

        File.WriteAllBytes(metadata, original);
        await using var store = StoreFactory.Open(options);
        Assert.Equal(Value(199, 1, 200), await ReadAsync(store, 199));
    }

    [Theory]
    [InlineData("deleted")]
    [InlineData("damaged")]
    public async Task TheCheckpointRecord_DeletedOrDamaged_IsReportedByName_AndNothingIsChanged(string damage)
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await WriteAndCloseAsync(options, 200);
        string record = Path.Combine(temp.Path, "store.checkpoint.json");
        if (damage == "deleted")
        {
            File.Delete(record);
        }
        else
        {
            byte[] bytes = File.ReadAllBytes(record);
            bytes[bytes.Length / 2] ^= 0x04;
            File.WriteAllBytes(record, bytes);
        }

        var before = Snapshot(temp.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(record, error.FilePath);
        Assert.Equal(before, Snapshot(temp.Path));
    }

    /// <summary>
    /// FASTER's recovery trusts record lengths: with this damage it would read a gigabyte past the page and the process
    /// would die of an access violation (this test's own process, without <c>RecordChainCheck</c>).
    /// </summary>
    [Fact]
    public async Task DamagedRecordHeader_IsReportedByName_InsteadOfCrashingRecovery_AndNothingIsChanged()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await WriteAndCloseAsync(options, 2_000);

        // Record layout: RecordInfo (8 bytes), key length (4), key (4), value length (4), value.
        byte[] needle = Value(42, 1, 200).AsSpan(0, 20).ToArray();
        string segment = Directory.GetFiles(temp.Path, "store.log.*").Single(path => IndexOf(File.ReadAllBytes(path), needle) >= 0);
        int keyLengthOffset = IndexOf(File.ReadAllBytes(segment), needle) - 12;
        Assert.Equal(sizeof(int), BitConverter.ToInt32(File.ReadAllBytes(segment), keyLengthOffset));
        using (var file = new FileStream(segment, FileMode.Open, FileAccess.ReadWrite))
        {
            file.Position = keyLengthOffset;
            file.Write(BitConverter.GetBytes(0x3FFF_FFF0));
        }

        var before = Snapshot(temp.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(segment, error.FilePath);
        Assert.Contains("does not fit in its page", error.Problem, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(temp.Path));
    }

    /// <summary>Damage that happens while the store is open is caught by the read of the damaged value.</summary>
    [Fact]
    public async Task DamagedValue_WithChecksums_ThrowsNamingItsLocation_AndTheStoreStaysUsable()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        options.ValueChecksums = true;
        await WriteAndCloseAsync(options, 2_000);
        await using var store = StoreFactory.Open(options);

        // Damage the filler of key 42's value where it lies in a segment file, under the open store.
        byte[] needle = Value(42, 1, 200).AsSpan(0, 20).ToArray();
        string segment = Directory.GetFiles(temp.Path, "store.log.*").Single(path => IndexOf(File.ReadAllBytes(path), needle) >= 0);
        FlipByteAt(segment, IndexOf(File.ReadAllBytes(segment), needle) + 100);

        var error = await Assert.ThrowsAsync<ValueChecksumMismatchException>(() => ReadAsync(store, 42));
        Assert.Equal(segment, error.SegmentFile);
        Assert.Contains(segment, error.Message, StringComparison.Ordinal);
        Assert.Equal(Value(41, 1, 200), await ReadAsync(store, 41));
        await store.UpsertAsync(Key(42), Value(42, 2, 10));
        Assert.Equal(Value(42, 2, 10), await ReadAsync(store, 42));
    }

    /// <summary>
    /// With 64 hash buckets the read of key 42 from the disk steps past other keys' records first; FASTER 2.6.5's read
    /// metadata then names where the read started, and the error named another record's address.
    /// </summary>
    [Fact]
    public async Task DamagedValue_ReadPastOtherKeysRecords_NamesItsOwnAddress()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        options.ValueChecksums = true;
        options.IndexNumBuckets = 1 << 6;
        await WriteAndCloseAsync(options, 2_000);
        await using var store = StoreFactory.Open(options);

        byte[] needle = Value(42, 1, 200).AsSpan(0, 20).ToArray();
        string segment = Directory.GetFiles(temp.Path, "store.log.*").Single(path => IndexOf(File.ReadAllBytes(path), needle) >= 0);
        int valueOffset = IndexOf(File.ReadAllBytes(segment), needle);
        FlipByteAt(segment, valueOffset + 100);

        // The record: an 8-byte header, the 4-byte key with its length, the value's length, then the value.
        long segmentNumber = long.Parse(Path.GetExtension(segment).TrimStart('.'), System.Globalization.CultureInfo.InvariantCulture);
        long recordAddress = (segmentNumber << options.SegmentSizeBits) + valueOffset - 8 - 8 - 4;
        var error = await Assert.ThrowsAsync<ValueChecksumMismatchException>(() => ReadAsync(store, 42));
        Assert.Equal(recordAddress, error.LogAddress);
        Assert.Contains($"log address {recordAddress} ", error.Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// Defect 4: one flipped bit in a record's key, value or tombstone bit, in a closed store. FASTER would miss the key
    /// (its record now belongs to another key), return an old value, or delete or resurrect it, silently. With checksums
    /// on, recovery checks every record's seal against its key, value and tombstone bit, and refuses the store.
    /// </summary>
    [Theory]
    [InlineData("key byte")]
    [InlineData("value byte")]
    [InlineData("tombstone bit set")]
    [InlineData("tombstone bit cleared")]
    [InlineData("key length flag")] // FASTER's recovery then read through the key as a pointer: the process died (the fuzzer found it)
    public async Task OneFlippedBit_InARecordsKeyValueOrTombstone_IsReportedByNameAtOpen_NeverASilentlyWrongKey(string damage)
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        options.ValueChecksums = true;
        await using (var store = StoreFactory.Open(options))
        {
            for (int i = 0; i < 2_000; i++)
            {
                await store.UpsertAsync(Key(i), Value(i, 1, 200));
            }

            // Written last, so still in the mutable region: the delete expires the record in place, keeping its value.
            Assert.True(await store.DeleteAsync(Key(1_999)));
        }

        // Record layout: RecordInfo (8 bytes), key length (4), key (4), value length (4), value.
        int key = damage == "tombstone bit cleared" ? 1_999 : 42;
        byte[] needle = Value(key, 1, 200).AsSpan(0, 20).ToArray();
        string segment = Directory.GetFiles(temp.Path, "store.log.*").Single(path => IndexOf(File.ReadAllBytes(path), needle) >= 0);
        int valueAt = IndexOf(File.ReadAllBytes(segment), needle);
        int recordAt = valueAt - 20;
        Assert.Equal(key, BitConverter.ToInt32(File.ReadAllBytes(segment), recordAt + 12));
        using (var file = new FileStream(segment, FileMode.Open, FileAccess.ReadWrite))
        {
            (long offset, byte mask) = damage switch
            {
                "key byte" => (recordAt + 12, (byte)0x01),
                "value byte" => (valueAt + 100, (byte)0x01),
                "key length flag" => (recordAt + 11, (byte)0x80),
                _ => (recordAt + 6, (byte)0x80), // the tombstone bit: bit 55 of the little-endian RecordInfo
            };
            file.Position = offset;
            int original = file.ReadByte();
            Assert.Equal(damage == "tombstone bit cleared", (original & mask) != 0 && damage.StartsWith("tombstone", StringComparison.Ordinal));
            file.Position = offset;
            file.WriteByte((byte)(original ^ mask));
        }

        var before = Snapshot(temp.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(segment, error.FilePath);
        Assert.Contains($"log address {recordAt}", error.Problem, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(temp.Path));
    }

    /// <summary>
    /// Without <c>ValueChecksums</c>, a value damaged on disk while the store is open is read back wrong: the sector
    /// checksums are checked when a store opens, not on every read. That is why the option exists.
    /// </summary>
    [Fact]
    public async Task WithoutValueChecksums_DamageWhileTheStoreIsOpen_GoesUndetected_WhichIsWhyTheOptionExists()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await WriteAndCloseAsync(options, 2_000);
        await using var store = StoreFactory.Open(options);
        byte[] needle = Value(42, 1, 200).AsSpan(0, 20).ToArray();
        string segment = Directory.GetFiles(temp.Path, "store.log.*").Single(path => IndexOf(File.ReadAllBytes(path), needle) >= 0);
        FlipByteAt(segment, IndexOf(File.ReadAllBytes(segment), needle) + 100);

        byte[]? value = await ReadAsync(store, 42);
        Assert.NotNull(value);
        Assert.NotEqual(Value(42, 1, 200), value);
    }

    [Fact]
    public async Task WithoutValueChecksums_DamageAtRest_IsRefusedAtOpen_ByTheSectorChecksums()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await WriteAndCloseAsync(options, 2_000);
        byte[] needle = Value(42, 1, 200).AsSpan(0, 20).ToArray();
        string segment = Directory.GetFiles(temp.Path, "store.log.*").Single(path => IndexOf(File.ReadAllBytes(path), needle) >= 0);
        FlipByteAt(segment, IndexOf(File.ReadAllBytes(segment), needle) + 100);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(segment, error.FilePath);
    }

    internal static async Task WriteAndCloseAsync(MixedStorageKVStoreOptions options, int count)
    {
        await using var store = StoreFactory.Open(options);
        for (int i = 0; i < count; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1, 200));
        }
    }

    /// <summary>Keeps the length prefix and replaces the metadata text after it, as bit rot across the file would.</summary>
    private static void OverwriteMetadataBody(string path)
    {
        byte[] bytes = File.ReadAllBytes(path);
        int length = BitConverter.ToInt32(bytes, 0);
        bytes.AsSpan(sizeof(int), length).Fill((byte)'7');
        File.WriteAllBytes(path, bytes);
    }
}
