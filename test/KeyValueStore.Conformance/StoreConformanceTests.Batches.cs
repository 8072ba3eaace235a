using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.Conformance;

/// <summary>Atomic batches, reads of several keys, and read-modify-writes of several keys.</summary>
public abstract partial class StoreConformanceTests
{
    [Fact]
    public async Task ApplyBatchAsync_AppliesEveryWriteInOrder_SoTheLastWriteOfAKeyWins()
    {
        await using IMixedStorageKVStore<string, Label> store = await OpenAsync<string, Label>();
        await store.UpsertAsync("gone", new Label("old", 0));

        await store.ApplyBatchAsync(new WriteBatch<string, Label>()
            .Upsert("a", new Label("first", 1))
            .Upsert("b", new Label("b", 1))
            .Delete("gone")
            .Upsert("a", new Label("last", 2)));

        Assert.Equal(
            [new ReadResult<Label>(KeyStatus.Found, new Label("last", 2)), new ReadResult<Label>(KeyStatus.Found, new Label("b", 1)), default, default],
            await store.ReadManyAsync(["a", "b", "gone", "never"]));
    }

    [Fact]
    public async Task AnEmptyBatch_AndAnEmptyReadMany_DoNothing()
    {
        await using IMixedStorageKVStore<int, int> store = await OpenAsync<int, int>();
        await store.UpsertAsync(1, 1);

        await store.ApplyBatchAsync(new WriteBatch<int, int>());

        Assert.Empty(await store.ReadManyAsync([]));
        Assert.Equal(1, (await store.ReadAsync(1)).Value);
    }

    [Fact]
    public async Task ReadManyAsync_ReturnsOneResultPerKey_InTheirOrder_RepeatsAndAbsentKeysIncluded()
    {
        await using IMixedStorageKVStore<int, string> store = await OpenAsync<int, string>();
        await store.UpsertAsync(1, "one");
        await store.UpsertAsync(2, "two");

        IReadOnlyList<ReadResult<string>> read = await store.ReadManyAsync([2, 3, 1, 2]);

        Assert.Equal(["two", null, "one", "two"], read.Select(result => result.Value));
        Assert.Equal([true, false, true, true], read.Select(result => result.Found));
    }

    [Fact]
    public async Task ABatchWithAnUnserializableOrOversizeWrite_WritesNothing_AndTheStoreStaysUsable()
    {
        await using IMixedStorageKVStore<int, object> store = await OpenAsync<int, object>();
        await store.UpsertAsync(1, "kept");

        var unserializable = new WriteBatch<int, object>().Upsert(1, "changed").Upsert(2, new NotSerializable());
        await Assert.ThrowsAsync<SerializationFailedException>(async () => await store.ApplyBatchAsync(unserializable));
        var oversize = new WriteBatch<int, object>().Upsert(1, "changed").Upsert(2, new byte[MaxValueBytes + 1]);
        await Assert.ThrowsAsync<RecordTooLargeException>(async () => await store.ApplyBatchAsync(oversize));

        Assert.Equal("kept", (await store.ReadAsync(1)).Value);
        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(2)).Status);
        await store.ApplyBatchAsync(new WriteBatch<int, object>().Upsert(2, "two"));
        Assert.Equal("two", (await store.ReadAsync(2)).Value);
    }

    [Fact]
    public async Task UpdateManyAsync_RefusesAWriteOfAKeyItDidNotRead_AndWritesNothing()
    {
        await using IMixedStorageKVStore<int, int> store = await OpenAsync<int, int>();
        await store.UpsertAsync(1, 10);

        await Assert.ThrowsAnyAsync<ArgumentException>(async () => await store.UpdateManyAsync([1], (_, writes) => writes.Upsert(1, 11).Upsert(2, 20)));

        Assert.Equal(10, (await store.ReadAsync(1)).Value);
        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(2)).Status);
    }

    [Fact]
    public async Task UpdateManyAsync_SeesTheCurrentValues_AndMayDeleteAndCreate()
    {
        await using IMixedStorageKVStore<string, int> store = await OpenAsync<string, int>();
        await store.UpsertAsync("old", 5);
        IReadOnlyList<ReadResult<int>>? seen = null;

        await store.UpdateManyAsync(["old", "new"], (current, writes) =>
        {
            seen = current;
            writes.Delete("old").Upsert("new", current[0].Value + 1);
        });

        Assert.Equal([new ReadResult<int>(KeyStatus.Found, 5), default], seen!);
        Assert.Equal([default, new ReadResult<int>(KeyStatus.Found, 6)], await store.ReadManyAsync(["old", "new"]));
    }

    [Fact]
    public async Task ConcurrentIncrements_ThroughUpdateMany_LoseNone()
    {
        await using IMixedStorageKVStore<string, long> store = await OpenAsync<string, long>();
        const int Workers = 8;
        const int IncrementsEach = 50;

        await Task.WhenAll(Enumerable.Range(0, Workers).Select(_ => Task.Run(async () =>
        {
            for (int i = 0; i < IncrementsEach; i++)
            {
                await store.UpdateManyAsync(["counter"], (current, writes) => writes.Upsert("counter", current[0].Value + 1));
            }
        })));

        Assert.Equal(Workers * IncrementsEach, (await store.ReadAsync("counter")).Value);
    }

    [Fact]
    public async Task ConcurrentTransfers_NeverChangeTheTotal_ForAnyReaderOfAllAccounts()
    {
        await using IMixedStorageKVStore<int, Balance> store = await OpenAsync<int, Balance>();
        await Bank.OpenAccountsAsync(store);

        IReadOnlyList<long> totalsSeen = await Bank.TransferWhileAuditingAsync(store, transfersPerWorker: 100);

        Assert.NotEmpty(totalsSeen);
        Assert.All(totalsSeen, total => Assert.Equal(Bank.Total, total));
        IReadOnlyList<ReadResult<Balance>> final = await store.ReadManyAsync(Bank.AccountIds);
        Assert.Equal(Bank.Total, final.Sum(account => account.Value.Amount));
        Assert.NotEqual(Enumerable.Repeat(Bank.OpeningBalance, Bank.Accounts), final.Select(account => account.Value.Amount));
    }
}
