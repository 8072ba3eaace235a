using System;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

/// <summary>
/// How much of the in-memory log a store updates in place (<see cref="MixedStorageKVStoreOptions.LogMutableFraction"/>),
/// on the real engine: an update of a record a few pages behind the tail either rewrites it where it is or appends a
/// new record.
/// </summary>
public class LogMutableFractionTests
{
    private const int PageSizeBits = 12;

    /// <summary>16 pages of 4 KB in memory: enough for the fraction to matter, as it counts whole pages.</summary>
    private static MixedStorageKVStoreOptions Options(string directory, DurabilityMode mode, double? fraction) => new()
    {
        LogDirectory = directory,
        LogFileNamePrefix = "store",
        DeleteLogOnClose = mode == DurabilityMode.None,
        Durability = mode,
        PageSizeBits = PageSizeBits,
        MemorySizeBits = PageSizeBits + 4,
        SegmentSizeBits = 20,
        IndexNumBuckets = 1 << 12,
        TimeBetweenLogCompactionsMS = -1,

        // No periodic checkpoint during the test: its fold-over would make every record read-only, in place or not.
        CheckpointIntervalMS = 3_600_000,
        LogMutableFraction = fraction,
    };

    [Theory]
    [InlineData(DurabilityMode.None, null, true)]
    [InlineData(DurabilityMode.Checkpoint, null, true)]
    [InlineData(DurabilityMode.Commit, null, false)]
    [InlineData(DurabilityMode.Commit, 0.9, true)]
    [InlineData(DurabilityMode.None, 0.0, false)]
    public async Task AnUpdateOfARecordPagesBehindTheTail_IsInPlaceOnlyWithinTheMutableFraction(DurabilityMode mode, double? fraction, bool inPlace)
    {
        using var temp = new TempDirectory();
        await using FasterRecordStore store = StoreFactory.Open(Options(temp.Path, mode, fraction));
        byte[] key = BitConverter.GetBytes(-1);
        await store.UpsertAsync(key, new byte[200]);
        long written = store.FasterKV.Log.TailAddress;

        // Four pages of other records: the key's record stays in memory (16 pages), three pages behind the tail page.
        for (int i = 0; i < 4 * (1 << PageSizeBits) / 200; i++)
        {
            await store.UpsertAsync(BitConverter.GetBytes(i), new byte[200]);
        }

        long tailBefore = store.FasterKV.Log.TailAddress;
        Assert.True(store.FasterKV.Log.HeadAddress < written, "premise: the key's record is still in memory");
        Assert.True(tailBefore - written > 3 << PageSizeBits, "premise: the key's record is more than three pages behind the tail");

        byte[] updated = new byte[200];
        updated[0] = 7;
        await store.UpsertAsync(key, updated);

        Assert.Equal(inPlace, store.FasterKV.Log.TailAddress == tailBefore);
        (bool found, PooledBuffer value) = await store.ReadAsync(key);
        Assert.True(found);
        Assert.Equal(updated, value.Span.ToArray());
        value.Return();
    }
}
