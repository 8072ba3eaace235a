using System.Collections.Concurrent;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>The reference README's examples (Jering.KeyValueStore), run against the typed store on real files.</summary>
public class ReferenceExampleTests
{
    private const int Records = 100_000;

    [Fact]
    public async Task UpsertReadUpdateDeleteRead_Of100000KeysConcurrently_SeesEveryStep()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, string>(TypedStores.InMemory(temp.Path));

        await UpsertAllAsync(store, "dummyString1");
        await ExpectAllAsync(store, KeyStatus.Found, "dummyString1");

        await UpsertAllAsync(store, "dummyString2");
        await ExpectAllAsync(store, KeyStatus.Found, "dummyString2");

        await DeleteAllAsync(store);
        await ExpectAllAsync(store, KeyStatus.NotFound, null);
    }

    [Fact]
    public async Task TheSameExample_OnAStoreThatSpillsToDisk_SeesEveryStep()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, string>(TypedStores.LowMemory(temp.Path));

        await UpsertAllAsync(store, "dummyString1");
        await UpsertAllAsync(store, "dummyString2");
        await ExpectAllAsync(store, KeyStatus.Found, "dummyString2");

        await DeleteAllAsync(store);
        await ExpectAllAsync(store, KeyStatus.NotFound, null);
    }

    [Fact]
    public async Task AnObjectValue_UnderAStringKey_ReadsBackMemberByMember()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<string, Customer>(TypedStores.InMemory(temp.Path));
        Customer customer = Customer.Sample(10);

        await store.UpsertAsync("dummyKey", customer);
        (KeyStatus status, Customer? result) = await store.ReadAsync("dummyKey");

        Assert.Equal(KeyStatus.Found, status);
        Assert.Equal(customer.Name, result!.Name);
        Assert.Equal(customer.Tags, result.Tags);
        Assert.Equal(customer.Visits, result.Visits);
        Assert.Equal(customer.Scores, result.Scores);
        Assert.NotSame(customer, result);
    }

    [Fact]
    public async Task AStructValue_UnderAnIntKey_ReadsBackMemberByMember()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, Reading>(TypedStores.InMemory(temp.Path));
        var reading = new Reading(byte.MaxValue, short.MaxValue, int.MaxValue, long.MaxValue);

        await store.UpsertAsync(0, reading);
        (KeyStatus status, Reading result) = await store.ReadAsync(0);

        Assert.Equal(KeyStatus.Found, status);
        Assert.Equal(reading, result);
    }

    private static async Task UpsertAllAsync(MixedStorageKVStore<int, string> store, string value)
    {
        var upserts = new ConcurrentQueue<Task>();
        Parallel.For(0, Records, key => upserts.Enqueue(store.UpsertAsync(key, value).AsTask()));
        await Task.WhenAll(upserts);
    }

    private static async Task DeleteAllAsync(MixedStorageKVStore<int, string> store)
    {
        var deletes = new ConcurrentQueue<ValueTask<KeyStatus>>();
        Parallel.For(0, Records, key => deletes.Enqueue(store.DeleteAsync(key)));
        foreach (ValueTask<KeyStatus> delete in deletes)
        {
            Assert.Equal(KeyStatus.Found, await delete);
        }
    }

    private static async Task ExpectAllAsync(MixedStorageKVStore<int, string> store, KeyStatus status, string? value)
    {
        var reads = new ConcurrentQueue<(int Key, ValueTask<ReadResult<string>> Read)>();
        Parallel.For(0, Records, key => reads.Enqueue((key, store.ReadAsync(key))));
        Assert.Equal(Records, reads.Count);
        foreach ((int key, ValueTask<ReadResult<string>> read) in reads)
        {
            ReadResult<string> result = await read;
            Assert.True(result == new ReadResult<string>(status, value), $"key {key}: expected ({status}, {value}), read ({result.Status}, {result.Value})");
        }
    }
}
