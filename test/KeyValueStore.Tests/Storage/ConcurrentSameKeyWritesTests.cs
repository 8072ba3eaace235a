using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Durability;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Durability;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

/// <summary>
/// Regression: when two FASTER 2.6.5 operations race to link a new record into the same hash entry (two writers of one
/// key, or a writer and compaction's copy), the loser's record stays in the log, invalid, with its key length
/// overwritten by its allocation size. Every later log scan misjudges that record's size and skips the records after
/// it on its page: compaction dropped them and recovery forgot them. The crash harness found it as a key written
/// cycles earlier that had vanished; this workload left three or four such records per run before the fix.
/// </summary>
public class ConcurrentSameKeyWritesTests
{
    private const int ColdKeys = 2_000;
    private const int HotKeys = 4;
    private const int Writers = 32;
    private const int WritesPerWriter = 2_000;
    private const int Keys = ColdKeys + HotKeys;
    private const int KeyBytes = sizeof(int);

    [Fact]
    public async Task ManyWritersOfAFewKeys_BesideCheckpointsAndCompactions_LeaveOnlyWellFormedRecords_AndLoseNoKey()
    {
        using var temp = new TempDirectory();
        var options = DurableStores.Options(temp.Path, DurabilityMode.Checkpoint);
        StoreSettings settings = StoreSettingsValidator.Validate(options);
        var lastWrites = new WriterLastWrites();
        await using (var store = StoreFactory.Open(options))
        {
            await WriteAsync(store, lastWrites);
        }

        await using var reopened = StoreFactory.Open(options);
        LogWalk walk = WalkRecoveredLog(reopened, settings);
        Assert.Equal(Array.Empty<string>(), walk.Malformed);
        for (int key = 0; key < Keys; key++)
        {
            (bool found, PooledBuffer value) = await reopened.ReadAsync(Key(key));
            Assert.True(found, $"key {key} was lost");
            int version = BinaryPrimitives.ReadInt32LittleEndian(value.Span[KeyBytes..]);
            bool whole = value.Span.SequenceEqual(Value(key, version));
            value.Return();
            Assert.True(whole, $"key {key} holds a value that was never written for it");

            // The store closed cleanly, and its last checkpoint holds every acknowledged write. A writer's writes to a
            // key come one after another, so the key's last write is one writer's last write to it.
            int[] candidates = key < ColdKeys ? [1] : lastWrites.Of(key - ColdKeys);
            Assert.True(candidates.Contains(version), $"key {key} holds version {version}, not the last write of any writer ({string.Join(", ", candidates)})");
        }

        // The walk read every live record: a walk that skipped part of the log would miss some key's.
        Assert.Equal(Enumerable.Range(0, Keys), walk.Keys.Order());
    }

    /// <summary>
    /// Cold keys once each, beside many writers hammering a few hot keys, while checkpoints (each makes every record
    /// read-only, so the next writes of a hot key all race to append its replacement) and compactions run in a loop.
    /// </summary>
    private static async Task WriteAsync(FasterRecordStore store, WriterLastWrites lastWrites)
    {
        using var stop = new CancellationTokenSource();
        var background = Task.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                await store.CheckpointAsync();
                await store.Compactor.CompactNowAsync();
            }
        });
        var cold = Task.Run(async () =>
        {
            for (int key = 0; key < ColdKeys; key++)
            {
                await store.UpsertAsync(Key(key), Value(key, 1));
            }
        });
        var hot = Enumerable.Range(0, Writers).Select(writer => Task.Run(async () =>
        {
            var random = new Random(writer);
            for (int i = 0; i < WritesPerWriter; i++)
            {
                int key = ColdKeys + random.Next(HotKeys);
                int version = (writer * WritesPerWriter) + i + 1;
                await store.UpsertAsync(Key(key), Value(key, version));
                lastWrites.Record(writer, key - ColdKeys, version);
            }
        }));
        await Task.WhenAll(hot.Append(cold));
        await stop.CancelAsync();
        await background;
    }

    /// <summary>
    /// Walks the recovered log's records from the latest checkpoint's begin address to its end, page by page, with the
    /// store's page and segment sizes. A well-formed record has a 4-byte key (any other length is FASTER's retry
    /// bookkeeping), lies wholly on its page, and holds a value this test wrote for that key.
    /// </summary>
    private static LogWalk WalkRecoveredLog(FasterRecordStore store, StoreSettings settings)
    {
        int pageSize = (int)settings.PageSizeBytes;
        long segmentOffsetMask = (1L << settings.SegmentSizeBits) - 1;
        int headerSize = RecordInfo.GetLength();
        int valueOffset = headerSize + sizeof(int) + KeyBytes;
        var walk = new LogWalk();
        RecoveryPoint point = CheckpointInspector.FindLatest(store.Layout!, out _)!;
        for (long page = point.BeginAddress & ~(pageSize - 1L); page < point.FinalLogicalAddress; page += pageSize)
        {
            byte[] bytes = new byte[pageSize];
            using (var file = new FileStream(store.Layout!.SegmentPath(page >> settings.SegmentSizeBits), FileMode.Open, FileAccess.Read, FileShare.ReadWrite))
            {
                file.Position = page & segmentOffsetMask;
                file.ReadExactly(bytes, 0, (int)Math.Min(pageSize, point.FinalLogicalAddress - page));
            }

            // The begin address may fall inside a page: what lies below it is no longer the log's.
            int offset = (int)(Math.Max(page, point.BeginAddress) - page);
            while (offset + valueOffset + sizeof(int) <= pageSize && page + offset < point.FinalLogicalAddress)
            {
                long address = page + offset;
                if (BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(offset)) == 0)
                {
                    offset += sizeof(long); // the zeros after a page's last record
                    continue;
                }

                int keyLength = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(offset + headerSize)) & 0x3FFF_FFFF;
                if (keyLength != KeyBytes)
                {
                    walk.Malformed.Add($"{address}: key length {keyLength}");
                    break; // The rest of the page cannot be walked from a wrong size.
                }

                int key = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(offset + headerSize + sizeof(int)));
                int valueLength = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(offset + valueOffset)) & 0x3FFF_FFFF;
                long size = PinnedRecord.SizeInLog(keyLength, valueLength);
                if (key is < 0 or >= Keys || valueLength < 2 * sizeof(int) || offset + size > pageSize)
                {
                    walk.Malformed.Add($"{address}: key {key}, value length {valueLength}, {size} bytes at offset {offset} of a {pageSize}-byte page");
                    break;
                }

                ReadOnlySpan<byte> value = bytes.AsSpan(offset + valueOffset + sizeof(int), valueLength);
                int version = BinaryPrimitives.ReadInt32LittleEndian(value[KeyBytes..]);
                if (version < 1 || !value.SequenceEqual(Value(key, version)))
                {
                    walk.Malformed.Add($"{address}: key {key} holds a value never written for it");
                }

                walk.Keys.Add(key);
                offset += (int)size;
            }
        }

        return walk;
    }

    private static byte[] Key(int key) => BitConverter.GetBytes(key);

    /// <summary>Key, version, then a filler whose length varies so records fall anywhere on a page.</summary>
    private static byte[] Value(int key, int version)
    {
        var value = new byte[8 + (((key * 37) + version) % 200)];
        BinaryPrimitives.WriteInt32LittleEndian(value, key);
        BinaryPrimitives.WriteInt32LittleEndian(value.AsSpan(4), version);
        value.AsSpan(8).Fill((byte)(key + version));
        return value;
    }

    /// <summary>What the walk found: the keys of the records it read, and each record that was not well formed.</summary>
    private sealed class LogWalk
    {
        public HashSet<int> Keys { get; } = new();

        public List<string> Malformed { get; } = new();
    }

    /// <summary>Each writer's last version written to each hot key; a writer records only its own, so no two threads share a slot.</summary>
    private sealed class WriterLastWrites
    {
        private readonly int[,] _versions = new int[Writers, HotKeys];

        public void Record(int writer, int hotKey, int version) => _versions[writer, hotKey] = version;

        /// <summary>The versions of a hot key that some writer wrote last; read once every writer has finished.</summary>
        public int[] Of(int hotKey) => Enumerable.Range(0, Writers).Select(writer => _versions[writer, hotKey]).Where(version => version != 0).ToArray();
    }
}
