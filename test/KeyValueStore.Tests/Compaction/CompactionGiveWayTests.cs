using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Compaction;

/// <summary>
/// In a slice with time to spare (fewer copy workers than all), compaction's copy workers and scan give their core to
/// waiting foreground operations between records (<see cref="KeyValueStore.Concurrency.GiveWay"/>): at least once for
/// every record a worker checks, and the copy still keeps every key's latest value. A slice the log's growth hurries
/// (all workers) copies without giving way.
/// </summary>
public class CompactionGiveWayTests
{
    private const int Keys = 2_000;

    [Fact]
    public async Task TheCopyWorkers_GiveWayBeforeEveryRecord_AndTheCopyLosesNothing()
    {
        (int giveWays, int records) = await CompactEveryPageAsync(copyWorkers: 2);

        Assert.True(giveWays >= records, $"{giveWays} give-ways for {records} records checked");
    }

    [Fact]
    public async Task ASliceWithAllItsWorkers_DoesNotGiveWay()
    {
        (int giveWays, int records) = await CompactEveryPageAsync(copyWorkers: LiveRecordCopier.Workers);

        Assert.True(records > 0);
        Assert.Equal(0, giveWays);
    }

    /// <summary>Writes every key, then every second key again, compacts the pages below the read-only address with <paramref name="copyWorkers"/>, and checks every key.</summary>
    private static async Task<(int GiveWays, int Records)> CompactEveryPageAsync(int copyWorkers)
    {
        using var temp = new TempDirectory();
        int giveWays = 0;
        StoreSettings settings = StoreSettingsValidator.Validate(StoreFactory.LowMemory(temp.Path)) with
        {
            CompactionGiveWay = () => Interlocked.Increment(ref giveWays),
        };
        await using FasterRecordStore store = StoreOpener.Open(settings, NullLogger.Instance);
        for (int version = 1; version <= 2; version++)
        {
            for (int key = 0; key < Keys; key += version)
            {
                await store.UpsertAsync(Key(key), Value(key, version));
            }
        }

        long begin = store.FasterKV.Log.BeginAddress;
        long until = store.FasterKV.Log.SafeReadOnlyAddress & ~((1L << settings.PageSizeBits) - 1);
        int records = CountRecords(store, begin, until);
        Assert.True(records > Keys / 2, $"only {records} records lay below the read-only address");

        await store.CopyLiveRecordsAsync(begin, until, writersHeld: false, copyWorkers: copyWorkers, passUntilAddress: until);
        store.FasterKV.Log.ShiftBeginAddress(until, truncateLog: true);

        for (int key = 0; key < Keys; key++)
        {
            (bool found, PooledBuffer value) = await store.ReadAsync(Key(key));
            Assert.True(found, $"key {key} was lost");
            Assert.Equal(Value(key, key % 2 == 0 ? 2 : 1), value.Span.ToArray());
            value.Return();
        }

        return (Volatile.Read(ref giveWays), records);
    }

    private static int CountRecords(FasterRecordStore store, long begin, long until)
    {
        using IFasterScanIterator<SpanByte, SpanByte> scan = store.FasterKV.Log.Scan(begin, until);
        int records = 0;
        while (scan.GetNext(out RecordInfo info))
        {
            records += info.Tombstone ? 0 : 1;
        }

        return records;
    }

    private static byte[] Key(int key) => BitConverter.GetBytes(key);

    private static byte[] Value(int key, int version) => System.Text.Encoding.ASCII.GetBytes($"{version}-{key:D8}");
}
