using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// One of each operation of <see cref="IMixedStorageKVStore{TKey, TValue}"/>, with both outcomes where there are two, and
/// what a store's <c>kvstore.operations</c> and <c>kvstore.operation.duration</c> must then say: the same for every
/// implementation, since a service that moves from one to the other keeps its dashboards.
/// </summary>
internal static class OperationMix
{
    /// <summary>The operations <see cref="RunAsync"/> performs.</summary>
    public const int Operations = 9;

    public static async Task RunAsync(IMixedStorageKVStore<string, int> store)
    {
        await store.UpsertAsync("a", 1);
        await store.UpsertAsync("b", 2);
        await store.ReadAsync("a");
        await store.ReadAsync("missing");
        await store.DeleteAsync("b");
        await store.DeleteAsync("missing");
        await store.ApplyBatchAsync(new WriteBatch<string, int>().Upsert("c", 3));
        await store.ReadManyAsync(["a", "c"]);
        await store.UpdateManyAsync(["a"], (current, batch) => batch.Upsert("a", current[0].Value + 1));
    }

    /// <summary>Asserts that <paramref name="store"/> counted and timed each operation of <see cref="RunAsync"/>, by kind and outcome.</summary>
    public static void AssertRecorded(StoreMeterRecorder meter, string store)
    {
        Assert.Equal(2, meter.Count(store, "upsert", "ok"));
        Assert.Equal(1, meter.Count(store, "read", "ok"));
        Assert.Equal(1, meter.Count(store, "read", "not_found"));
        Assert.Equal(1, meter.Count(store, "delete", "ok"));
        Assert.Equal(1, meter.Count(store, "delete", "not_found"));
        Assert.Equal(1, meter.Count(store, "batch", "ok"));
        Assert.Equal(1, meter.Count(store, "read_many", "ok"));
        Assert.Equal(1, meter.Count(store, "update_many", "ok"));
        var durations = meter.Of(store, "kvstore.operation.duration").ToList();
        Assert.Equal(Operations, durations.Count);
        Assert.All(durations, d => Assert.True(d.Value > 0 && d.Value < 60, $"a duration of {d.Value} s"));
    }
}
