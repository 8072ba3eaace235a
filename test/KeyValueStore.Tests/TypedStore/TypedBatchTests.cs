using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>A batch's write limit, its encoding (compressed and plain values, deletes), and the bank invariant on the embedded store from disk and across a reopen; what every store does with batches is in the conformance suite.</summary>
public class TypedBatchTests
{
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

    [Fact]
    public async Task ABatchsCompressedValue_PlainValue_AndDelete_ReadBackAsWritten()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<string, byte[]>(TypedStores.InMemory(temp.Path));
        await store.UpsertAsync("gone", [9]);
        byte[] compressible = Enumerable.Repeat((byte)'x', 4_000).ToArray();
        byte[] small = [1, 2, 3];

        await store.ApplyBatchAsync(new WriteBatch<string, byte[]>().Upsert("large", compressible).Upsert("small", small).Delete("gone"));

        Assert.Equal(compressible, (await store.ReadAsync("large")).Value);
        Assert.Equal(small, (await store.ReadAsync("small")).Value);
        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync("gone")).Status);
    }

    [Theory]
    [InlineData(DurabilityMode.None)]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task ConcurrentTransfers_FromDisk_NeverChangeTheTotal_ForAnyConsistentReader_NorAcrossAReopen(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = mode == DurabilityMode.None ? TypedStores.LowMemory(temp.Path) : TypedStores.Durable(temp.Path, mode);
        await using (var store = TypedStores.Open<int, Balance>(options))
        {
            await Bank.OpenAccountsAsync(store);

            IReadOnlyList<long> totalsSeen = await Bank.TransferWhileAuditingAsync(store, transfersPerWorker: 150);

            Assert.NotEmpty(totalsSeen);
            Assert.All(totalsSeen, total => Assert.Equal(Bank.Total, total));
            Assert.Equal(Bank.Total, (await store.ReadManyAsync(Bank.AccountIds)).Sum(account => account.Value.Amount));
        }

        if (mode != DurabilityMode.None)
        {
            await using var reopened = TypedStores.Open<int, Balance>(options);
            IReadOnlyList<ReadResult<Balance>> balances = await reopened.ReadManyAsync(Bank.AccountIds);
            Assert.All(balances, balance => Assert.True(balance.Found));
            Assert.Equal(Bank.Total, balances.Sum(account => account.Value.Amount));
        }
    }
}
