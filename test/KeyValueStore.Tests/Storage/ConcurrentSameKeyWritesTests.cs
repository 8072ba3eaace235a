using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
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
    private const int KeyBytes = sizeof(int);

    [Fact]
    public async Task ManyWritersOfAFewKeys_BesideCheckpointsAndCompactions_LeaveOnlyWellFormedRecords_AndLoseNoKey()
    {
        using var temp = new TempDirectory();
        var options = DurableStores.Options(temp.Path, DurabilityMode.Checkpoint);
        var written = new int[ColdKeys + HotKeys];
        await using (var store = StoreFactory.Open(options))
        {
            await WriteAsync(store, written);
        }

        await using var reopened = StoreFactory.Open(options);
        Assert.Equal(Array.Empty<long>(), RecordsWithAForeignKeyLength(reopened));
        for (int key = 0; key < written.Length; key++)
        {
            (bool found, PooledBuffer value) = await reopened.ReadAsync(Key(key));
            Assert.True(found, $"key {key} was lost");
            int version = BinaryPrimitives.ReadInt32LittleEndian(value.Span[KeyBytes..]);
            bool whole = value.Span.SequenceEqual(Value(key, version));
            value.Return();
            Assert.True(whole, $"key {key} holds a value that was never written for it");
            Assert.True(version <= written[key], $"key {key} holds version {version}, above the last one written ({written[key]})");
        }
    }

    /// <summary>
    /// Cold keys once each, beside many writers hammering a few hot keys, while checkpoints (each makes every record
    /// read-only, so the next writes of a hot key all race to append its replacement) and compactions run in a loop.
    /// </summary>
    private static async Task WriteAsync(FasterRecordStore store, int[] written)
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
                written[key] = 1;
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
                InterlockedMax(ref written[key], version);
            }
        }));
        await Task.WhenAll(hot.Append(cold));
        await stop.CancelAsync();
        await background;
    }

    /// <summary>Walks the recovered log's record headers; every key in this test is 4 bytes long, so any other length is FASTER's retry bookkeeping.</summary>
    private static List<long> RecordsWithAForeignKeyLength(FasterRecordStore store)
    {
        const int pageSize = 1 << 12;
        var foreign = new List<long>();
        RecoveryPoint point = CheckpointInspector.FindLatest(store.Layout!, out _)!;
        for (long page = point.BeginAddress & ~(pageSize - 1L); page < point.FinalLogicalAddress; page += pageSize)
        {
            byte[] bytes = new byte[pageSize];
            using (var file = new FileStream(store.Layout!.SegmentPath(page >> 20), FileMode.Open, FileAccess.Read, FileShare.ReadWrite))
            {
                file.Position = page & ((1L << 20) - 1);
                file.ReadExactly(bytes, 0, (int)Math.Min(pageSize, ((point.FinalLogicalAddress - page) + 511) & ~511L));
            }

            int offset = 0;
            while (offset + 24 <= pageSize && page + offset < point.FinalLogicalAddress)
            {
                if (BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(offset)) == 0)
                {
                    offset += 8;
                    continue;
                }

                int keyLength = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(offset + 8)) & 0x3FFF_FFFF;
                if (keyLength != KeyBytes)
                {
                    foreign.Add(page + offset);
                    break; // The rest of the page cannot be walked from a wrong size.
                }

                int valueLength = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(offset + 16)) & 0x3FFF_FFFF;
                offset += (8 + 8 + 4 + valueLength + 7) & ~7;
            }
        }

        return foreign;
    }

    private static void InterlockedMax(ref int target, int value)
    {
        int current;
        while ((current = Volatile.Read(ref target)) < value && Interlocked.CompareExchange(ref target, value, current) != current)
        {
        }
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
}
