using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Compaction;
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
/// (all workers) copies without giving way, and so does one from the moment its pass hurries it (<see cref="SlicePace"/>).
/// </summary>
public class CompactionGiveWayTests
{
    private const int Keys = 2_000;

    [Fact]
    public async Task TheCopyWorkers_GiveWayBeforeEveryRecord_AndTheCopyLosesNothing()
    {
        (int giveWays, int records, _) = await CompactEveryPageAsync(SlicePace.WithTimeToSpare(2));

        Assert.True(giveWays >= records, $"{giveWays} give-ways for {records} records checked");
    }

    [Fact]
    public async Task ASliceWithAllItsWorkers_DoesNotGiveWay()
    {
        (int giveWays, int records, _) = await CompactEveryPageAsync(SlicePace.Hurried());

        Assert.True(records > 0);
        Assert.Equal(0, giveWays);
    }

    /// <summary>
    /// A slice hurried while it copies gives way no more: beside unpaced writers every give-way waits for a busy core, and
    /// a first slice that gave way to its end took 1.7 s for 3 MB while the writers took the disk to 3.8 times the live data.
    /// </summary>
    [Fact]
    public async Task ASliceHurriedWhileItCopies_GivesWayNoMore()
    {
        const int HurriedAfter = 20;
        var pace = SlicePace.WithTimeToSpare(2);

        (int giveWays, int records, _) = await CompactEveryPageAsync(pace, giveWays =>
        {
            if (giveWays == HurriedAfter)
            {
                pace.Hurry();
            }
        });

        // Each of the two workers and the scan may have read the pace just before it was hurried.
        Assert.True(records > 10 * HurriedAfter, $"only {records} records");
        Assert.InRange(giveWays, HurriedAfter, HurriedAfter + 3);
    }

    /// <summary>
    /// A slice hurried while it copies copies its next batch with all the workers: two beside eight unpaced writers get
    /// two of their time slices, and a store of small records' first slice took 0.9 s for 4 MB so.
    /// </summary>
    [Fact]
    public async Task ASliceHurriedWhileItCopies_TakesOnAllTheWorkers_FromItsNextBatch()
    {
        var pace = SlicePace.WithTimeToSpare(2);

        // Values of 2 KB: several batches of scanned records, of which the hurry comes in the first.
        (_, int records, int sessionsOpened) = await CompactEveryPageAsync(pace, giveWays => pace.Hurry(), valueLength: 2_000);

        Assert.True(records > Keys / 2, $"only {records} records");
        Assert.Equal(LiveRecordCopier.Workers, sessionsOpened);
    }

    /// <summary>
    /// Writes every key, then every second key again (values of <paramref name="valueLength"/> bytes, or short ones),
    /// compacts the pages below the read-only address at <paramref name="pace"/>, and checks every key;
    /// <paramref name="onGiveWay"/> sees each give-way's count. Returns the give-ways, the records below the read-only
    /// address, and the sessions the copies opened.
    /// </summary>
    private static async Task<(int GiveWays, int Records, int SessionsOpened)> CompactEveryPageAsync(SlicePace pace, Action<int>? onGiveWay = null, int valueLength = 0)
    {
        using var temp = new TempDirectory();
        int giveWays = 0;
        StoreSettings settings = StoreSettingsValidator.Validate(StoreFactory.LowMemory(temp.Path)) with
        {
            CompactionGiveWay = () =>
            {
                int count = Interlocked.Increment(ref giveWays);
                onGiveWay?.Invoke(count);
            },
        };
        await using FasterRecordStore store = StoreOpener.Open(settings, NullLogger.Instance);
        for (int version = 1; version <= 2; version++)
        {
            for (int key = 0; key < Keys; key += version)
            {
                await store.UpsertAsync(Key(key), Value(key, version, valueLength));
            }
        }

        long begin = store.FasterKV.Log.BeginAddress;
        long until = store.FasterKV.Log.SafeReadOnlyAddress & ~((1L << settings.PageSizeBits) - 1);
        int records = CountRecords(store, begin, until);
        Assert.True(records > Keys / 2, $"only {records} records lay below the read-only address");

        await store.CopyLiveRecordsAsync(begin, until, writersHeld: false, pace: pace, passUntilAddress: until);
        store.FasterKV.Log.ShiftBeginAddress(until, truncateLog: true);

        for (int key = 0; key < Keys; key++)
        {
            (bool found, PooledBuffer value) = await store.ReadAsync(Key(key));
            Assert.True(found, $"key {key} was lost");
            Assert.Equal(Value(key, key % 2 == 0 ? 2 : 1, valueLength), value.Span.ToArray());
            value.Return();
        }

        return (Volatile.Read(ref giveWays), records, store.CompactionSessionsOpened);
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

    /// <summary>The version and key as text, padded with a byte of the key to <paramref name="length"/> when that is longer.</summary>
    private static byte[] Value(int key, int version, int length)
    {
        byte[] text = System.Text.Encoding.ASCII.GetBytes($"{version}-{key:D8}");
        if (length <= text.Length)
        {
            return text;
        }

        byte[] value = new byte[length];
        Array.Fill(value, (byte)key);
        text.CopyTo(value, 0);
        return value;
    }
}
