using System;
using System.Threading.Tasks;
using KeyValueStore.Compaction;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Compaction;

/// <summary>
/// The slices of one compaction pass read the log through one scan (<see cref="SliceScan"/>): the scan is opened once
/// for the pass, each slice continues it, and no record is lost or copied twice where a slice ends, including the
/// records the scan reaches by skipping a page's empty end.
/// </summary>
public class SliceScanTests
{
    private const int Keys = 3_000;

    [Fact]
    public async Task ThePassesSlices_ShareOneScan_AndEveryLiveRecordSurvivesTheCompaction()
    {
        using var temp = new TempDirectory();
        await using FasterRecordStore store = OpenLowMemory(temp.Path);
        await WriteEveryKeyAsync(store, rewriteEvery: 7);
        long pageSize = 1L << LowMemoryPageSizeBits;
        long begin = store.FasterKV.Log.BeginAddress;
        long until = store.FasterKV.Log.SafeReadOnlyAddress & ~(pageSize - 1);
        int slices = 0;

        for (long sliceStart = begin; sliceStart < until; sliceStart = (sliceStart + pageSize) & ~(pageSize - 1))
        {
            long sliceEnd = Math.Min(until, (sliceStart + pageSize) & ~(pageSize - 1));
            await store.CopyLiveRecordsAsync(sliceStart, sliceEnd, writersHeld: false, pace: SlicePace.WithTimeToSpare(1), passUntilAddress: until);
            store.FasterKV.Log.ShiftBeginAddress(sliceEnd, truncateLog: true);
            slices++;
        }

        Assert.True(slices >= 20, $"the log held only {slices} pages to compact");
        Assert.Equal(1, store.CompactionScansOpened);
        await AssertEveryKeyHasItsLatestValueAsync(store, rewriteEvery: 7);
    }

    [Fact]
    public async Task ASliceThatDoesNotContinueTheScan_OpensItsOwn()
    {
        using var temp = new TempDirectory();
        await using FasterRecordStore store = OpenLowMemory(temp.Path);
        await WriteEveryKeyAsync(store, rewriteEvery: 5);
        long pageSize = 1L << LowMemoryPageSizeBits;
        long begin = store.FasterKV.Log.BeginAddress;
        long first = (begin + pageSize) & ~(pageSize - 1);
        long until = store.FasterKV.Log.SafeReadOnlyAddress & ~(pageSize - 1);

        // The first slice of a pass to `until`, then a pass that starts again at the begin address (nothing shifted it).
        await store.CopyLiveRecordsAsync(begin, first, writersHeld: false, pace: SlicePace.WithTimeToSpare(1), passUntilAddress: until);
        await store.CopyLiveRecordsAsync(begin, until, writersHeld: false, pace: SlicePace.WithTimeToSpare(2), passUntilAddress: until);
        store.FasterKV.Log.ShiftBeginAddress(until, truncateLog: true);

        Assert.Equal(2, store.CompactionScansOpened);
        await AssertEveryKeyHasItsLatestValueAsync(store, rewriteEvery: 5);
    }

    private static int LowMemoryPageSizeBits => StoreFactory.LowMemory(string.Empty).PageSizeBits;

    private static FasterRecordStore OpenLowMemory(string directory) =>
        StoreOpener.Open(StoreSettingsValidator.Validate(StoreFactory.LowMemory(directory)), NullLogger.Instance);

    private static async Task WriteEveryKeyAsync(FasterRecordStore store, int rewriteEvery)
    {
        for (int key = 0; key < Keys; key++)
        {
            // Values of varying length, so that pages end with empty space the scan skips.
            await store.UpsertAsync(Key(key), Value(key, version: 1));
        }

        for (int key = 0; key < Keys; key += rewriteEvery)
        {
            await store.UpsertAsync(Key(key), Value(key, version: 2));
        }
    }

    private static async Task AssertEveryKeyHasItsLatestValueAsync(FasterRecordStore store, int rewriteEvery)
    {
        for (int key = 0; key < Keys; key++)
        {
            (bool found, PooledBuffer value) = await store.ReadAsync(Key(key));
            Assert.True(found, $"key {key} was lost");
            Assert.Equal(Value(key, key % rewriteEvery == 0 ? 2 : 1), value.Span.ToArray());
            value.Return();
        }
    }

    private static byte[] Key(int key) => BitConverter.GetBytes(key);

    private static byte[] Value(int key, int version) =>
        System.Text.Encoding.ASCII.GetBytes($"{version}-{key:D8}-" + new string('v', key % 97));
}
