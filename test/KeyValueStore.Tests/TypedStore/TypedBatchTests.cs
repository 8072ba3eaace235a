using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>Atomic batches, consistent multi-key reads and multi-key read-modify-write through the typed API.</summary>
public class TypedBatchTests
{
    private const int Accounts = 16;
    private const long OpeningBalance = 1_000;

    [Fact]
    public async Task ApplyBatchAsync_AppliesEveryWriteInOrder_SoTheLastWriteOfAKeyWins()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<string, Label>(TypedStores.LowMemory(temp.Path));
        await store.UpsertAsync("gone", new Label("old", 0));

        await store.ApplyBatchAsync(new WriteBatch<string, Label>()
            .Upsert("a", new Label("first", 1))
            .Upsert("b", new Label("b", 1))
            .Delete("gone")
            .Upsert("a", new Label("last", 2)));

        IReadOnlyList<ReadResult<Label>> read = await store.ReadManyAsync(["a", "b", "gone", "never"]);
        Assert.Equal(
            [
                new ReadResult<Label>(KeyStatus.Found, new Label("last", 2)),
                new ReadResult<Label>(KeyStatus.Found, new Label("b", 1)),
                default,
                default,
            ],
            read);
    }

    [Fact]
    public async Task ABatchWithAnUnserializableOrOversizeWrite_WritesNothing_AndTheStoreStaysUsable()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, object>(TypedStores.LowMemory(temp.Path));
        await store.UpsertAsync(1, "kept");

        var unserializable = new WriteBatch<int, object>().Upsert(1, "changed").Upsert(2, new NotSerializable());
        await Assert.ThrowsAsync<SerializationFailedException>(async () => await store.ApplyBatchAsync(unserializable));
        var oversize = new WriteBatch<int, object>().Upsert(1, "changed").Upsert(2, new byte[8 * 1024]);
        await Assert.ThrowsAsync<RecordTooLargeException>(async () => await store.ApplyBatchAsync(oversize));

        Assert.Equal("kept", (await store.ReadAsync(1)).Value);
        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(2)).Status);
        await store.ApplyBatchAsync(new WriteBatch<int, object>().Upsert(2, "two"));
        Assert.Equal("two", (await store.ReadAsync(2)).Value);
    }

    [Fact]
    public void AWriteBatch_RefusesItsWrite65536_AndANullKey()
    {
        var batch = new WriteBatch<int, int>();
        for (int i = 0; i < WriteBatch<int, int>.MaxWrites; i++)
        {
            batch.Upsert(i, i);
        }

        var error = Assert.Throws<BatchTooLargeException>(() => batch.Delete(0));
        Assert.Equal(65_536, error.Writes);
        Assert.Equal(65_535, batch.Count);
        Assert.Throws<ArgumentNullException>(() => new WriteBatch<string, int>().Upsert(null!, 1));
    }

    [Theory]
    [InlineData(DurabilityMode.None)]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task ConcurrentTransfers_NeverChangeTheTotal_ForAnyConsistentReader_NorAcrossAReopen(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = mode == DurabilityMode.None ? TypedStores.LowMemory(temp.Path) : TypedStores.Durable(temp.Path, mode);
        int[] accounts = Enumerable.Range(0, Accounts).ToArray();
        var store = TypedStores.Open<int, Balance>(options);
        try
        {
            var opening = new WriteBatch<int, Balance>();
            foreach (int account in accounts)
            {
                opening.Upsert(account, new Balance(OpeningBalance));
            }

            await store.ApplyBatchAsync(opening);
            var totalsSeen = new List<long>();
            Task[] transfers = Enumerable.Range(0, 8).Select(worker => Task.Run(() => TransferAsync(store, worker, 150))).ToArray();
            Task auditor = Task.Run(async () =>
            {
                do
                {
                    IReadOnlyList<ReadResult<Balance>> snapshot = await store.ReadManyAsync(accounts);
                    lock (totalsSeen)
                    {
                        totalsSeen.Add(snapshot.Sum(account => account.Value.Amount));
                    }
                }
                while (!transfers.All(transfer => transfer.IsCompleted));
            });
            await Task.WhenAll(transfers.Append(auditor));

            Assert.NotEmpty(totalsSeen);
            Assert.All(totalsSeen, total => Assert.Equal(Accounts * OpeningBalance, total));
            Assert.Equal(Accounts * OpeningBalance, (await store.ReadManyAsync(accounts)).Sum(account => account.Value.Amount));
            Assert.NotEqual(Enumerable.Repeat(OpeningBalance, Accounts), (await store.ReadManyAsync(accounts)).Select(account => account.Value.Amount));
        }
        finally
        {
            await store.DisposeAsync();
        }

        if (mode != DurabilityMode.None)
        {
            await using var reopened = TypedStores.Open<int, Balance>(options);
            IReadOnlyList<ReadResult<Balance>> balances = await reopened.ReadManyAsync(accounts);
            Assert.All(balances, balance => Assert.True(balance.Found));
            Assert.Equal(Accounts * OpeningBalance, balances.Sum(account => account.Value.Amount));
        }
    }

    /// <summary>Moves random amounts between random pairs of accounts, each move one atomic read-modify-write.</summary>
    private static async Task TransferAsync(MixedStorageKVStore<int, Balance> store, int seed, int transfers)
    {
        var random = new Random(seed);
        for (int i = 0; i < transfers; i++)
        {
            int from = random.Next(Accounts);
            int to = (from + 1 + random.Next(Accounts - 1)) % Accounts;
            long amount = random.Next(1, 50);
            await store.UpdateManyAsync([from, to], (current, writes) =>
            {
                long available = current[0].Value.Amount;
                long moved = Math.Min(available, amount);
                writes.Upsert(from, new Balance(available - moved)).Upsert(to, new Balance(current[1].Value.Amount + moved));
            });
        }
    }
}
