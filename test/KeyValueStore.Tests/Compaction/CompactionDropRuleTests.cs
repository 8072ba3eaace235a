using System;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Compaction;

/// <summary>
/// A store opened with a compaction filter drops the live values it names instead of copying them, on both copying
/// paths: beside the writers and with them held (FASTER's own compaction). Other values, and values that are not
/// live any more, fare as before. A typed store opened with a filter asks it of the decoded value.
/// </summary>
public class CompactionDropRuleTests
{
    private const int Keys = 4_000;

    [Theory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    public async Task LiveValuesTheFilterNames_AreDropped_AndTheRestCopied(bool writersHeld, bool valueChecksums)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(temp.Path);
        options.ValueChecksums = valueChecksums;
        StoreSettings settings = StoreSettingsValidator.Validate(options) with { DropOnCompaction = value => value[0] == (byte)'x' };
        await using FasterRecordStore store = StoreOpener.Open(settings, NullLogger.Instance);
        for (int key = 0; key < Keys; key++)
        {
            // Every third key expired; every fifth rewritten live, so its first, expired record is superseded.
            await store.UpsertAsync(Key(key), Value(key % 3 == 0 ? 'x' : 'o', key));
        }

        for (int key = 0; key < Keys; key += 5)
        {
            await store.UpsertAsync(Key(key), Value('o', key));
        }

        long until = store.FasterKV.Log.SafeReadOnlyAddress & ~((1L << options.PageSizeBits) - 1);
        await store.CopyLiveRecordsAsync(store.FasterKV.Log.BeginAddress, until, writersHeld);
        store.FasterKV.Log.ShiftBeginAddress(until, truncateLog: true);

        int dropped = 0;
        for (int key = 0; key < Keys; key++)
        {
            (bool found, PooledBuffer value) = await store.ReadAsync(Key(key));
            bool expired = key % 3 == 0 && key % 5 != 0;
            if (found)
            {
                Assert.Equal(Value('o', key), value.Span.ToArray());
                value.Return();
            }

            Assert.True(found || expired, $"key {key}, live and not expired, was lost");
            dropped += found ? 0 : 1;
        }

        // Only the records below the copied range's end were compacted; most expired ones were there.
        Assert.True(dropped > Keys / 6, $"only {dropped} expired values were dropped");
    }

    [Fact]
    public async Task ATypedStore_AsksItsFilterOfTheDecodedValue()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(temp.Path);
        await using var store = await MixedStorageKVStore<int, int>.OpenAsync(options, dropOnCompaction: value => value < 0);
        for (int key = 0; key < Keys; key++)
        {
            await store.UpsertAsync(key, key % 2 == 0 ? -key - 1 : key);
        }

        await store.CompactAsync();

        int dropped = 0;
        for (int key = 0; key < Keys; key++)
        {
            ReadResult<int> read = await store.ReadAsync(key);
            Assert.True(read.Found || key % 2 == 0, $"key {key}, which the filter keeps, was lost");
            if (read.Found)
            {
                Assert.Equal(key % 2 == 0 ? -key - 1 : key, read.Value);
            }
            else
            {
                dropped++;
            }
        }

        Assert.True(dropped > Keys / 4, $"only {dropped} of the values the filter names were dropped");
    }

    /// <summary>
    /// The filter is the caller's code: whatever it throws, the value it threw on is kept and compaction goes on. A
    /// filter that threw anything but the few exception types once caught failed every pass, and the log grew unbounded.
    /// </summary>
    [Fact]
    public async Task AFilterThatThrows_KeepsTheValueItThrewOn_AndTheCompactionCompletes()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(temp.Path);
        await using var store = await MixedStorageKVStore<int, int>.OpenAsync(
            options,
            dropOnCompaction: value => value % 3 == 0 ? throw new NullReferenceException("the filter's own bug") : value < 0);
        for (int key = 0; key < Keys; key++)
        {
            await store.UpsertAsync(key, key % 2 == 0 ? -key - 1 : key);
        }

        CompactionSummary summary = await store.CompactAsync();

        Assert.True(summary.Compacted);
        int dropped = 0;
        for (int key = 0; key < Keys; key++)
        {
            int stored = key % 2 == 0 ? -key - 1 : key;
            ReadResult<int> read = await store.ReadAsync(key);
            Assert.True(read.Found || (stored < 0 && stored % 3 != 0), $"key {key} ({stored}), which the filter keeps or throws on, was lost");
            dropped += read.Found ? 0 : 1;
        }

        Assert.True(dropped > Keys / 8, $"only {dropped} values were dropped");
    }

    private static byte[] Key(int key) => BitConverter.GetBytes(key);

    private static byte[] Value(char state, int key) => System.Text.Encoding.ASCII.GetBytes($"{state}-{key:D8}-payload-payload-payload");
}
