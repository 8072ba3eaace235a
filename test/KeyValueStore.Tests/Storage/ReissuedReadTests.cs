using System;
using System.Text;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

/// <summary>
/// A read that waits for the disk while its key gets a newer record, which leaves memory before the read comes back.
/// FASTER 2.6.5 then issues the read again. Completed through FASTER's <c>ReadAsync</c>, the second issue ran with
/// pooled buffers the first had already given back: a locating read returned the key's value instead of its location,
/// and later reads in other sessions found nothing for a key that was there (<see cref="PinnedRecord.TryRead"/>). Found
/// by the concurrent compaction test in a store of four pages.
/// </summary>
public class ReissuedReadTests
{
    [Fact]
    public async Task ALocatingRead_WhoseKeyGetsANewerRecordThatLeavesMemoryWhileItWaits_ReturnsTheNewerRecordsLocation()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.OpenLowMemoryWithFaultInjection(temp.Path, out FaultInjectingDevice device);
        var fault = new StoreFault();
        using var session = store.NewSession();

        Task<RecordLocation?> locate = ReissuedWhileAnotherVersionLeavesMemoryAsync(store, device, () => RecordLocation.OfLatestAsync(session, Key, fault).AsTask());
        RecordLocation? located = await locate.WaitAsync(TimeSpan.FromSeconds(30));

        using var fresh = store.NewSession();
        RecordLocation? latest = await RecordLocation.OfLatestAsync(fresh, Key, fault);
        Assert.NotNull(latest);
        Assert.Equal(latest, located);
        await AssertEveryReadFindsTheNewerVersionAsync(store);
    }

    [Fact]
    public async Task ARead_WhoseKeyGetsANewerRecordThatLeavesMemoryWhileItWaits_ReturnsAVersion_AndLaterReadsTheNewerOne()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.OpenLowMemoryWithFaultInjection(temp.Path, out FaultInjectingDevice device);

        Task<(bool Found, PooledBuffer Value)> read = ReissuedWhileAnotherVersionLeavesMemoryAsync(store, device, () => store.ReadAsync(Key).AsTask());
        (bool found, PooledBuffer value) = await read.WaitAsync(TimeSpan.FromSeconds(30));

        // The read overlapped the second upsert: either version is a right answer, nothing else is.
        Assert.True(found, "the key vanished for a read that overlapped its overwrite");
        Assert.Contains(Encoding.UTF8.GetString(value.Span), new[] { Encoding.UTF8.GetString(Value(1)), Encoding.UTF8.GetString(Value(2)) });
        value.Return();
        await AssertEveryReadFindsTheNewerVersionAsync(store);
    }

    private static byte[] Key => BitConverter.GetBytes(7);

    private static byte[] Value(int version) => Encoding.UTF8.GetBytes($"version {version} ".PadRight(100, '#'));

    /// <summary>
    /// Writes version 1 of the key and evicts it, starts <paramref name="start"/> with the disk holding its read, then
    /// writes version 2 and evicts that too before letting the read through: FASTER finds the key's chain grown below
    /// memory and issues the read again.
    /// </summary>
    private static async Task<T> ReissuedWhileAnotherVersionLeavesMemoryAsync<T>(FasterRecordStore store, FaultInjectingDevice device, Func<Task<T>> start)
    {
        await store.UpsertAsync(Key, Value(1));
        store.FasterKV.Log.FlushAndEvict(wait: true);
        device.HoldReads();
        Task<T> read;
        try
        {
            read = start();
            await Eventually.TrueAsync(() => device.HeldReads > 0, () => "the read never reached the disk");
            device.StopHoldingNewReads();

            await store.UpsertAsync(Key, Value(2));
            store.FasterKV.Log.FlushAndEvict(wait: true);
        }
        finally
        {
            device.ReleaseReads();
        }

        return await read;
    }

    private static async Task AssertEveryReadFindsTheNewerVersionAsync(FasterRecordStore store)
    {
        // Several reads, so that they go through the sessions the pool hands out in turn, the reissued read's among them.
        for (int i = 0; i < 8; i++)
        {
            (bool found, PooledBuffer value) = await store.ReadAsync(Key);
            Assert.True(found, $"read {i} after the reissued read found nothing");
            Assert.Equal(Value(2), value.Span.ToArray());
            value.Return();
        }
    }
}
