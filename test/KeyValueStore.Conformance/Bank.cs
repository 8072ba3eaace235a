using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.Conformance;

/// <summary>
/// The bank invariant: accounts opened with one balance each, money moved between them by concurrent atomic
/// read-modify-writes while an auditor reads every account at once. The total never changes for any reader.
/// Shared by the conformance suite and by the embedded store's durability tests (which also reopen the store).
/// </summary>
public static class Bank
{
    public const int Accounts = 16;
    public const long OpeningBalance = 1_000;
    public const long Total = Accounts * OpeningBalance;

    public static int[] AccountIds { get; } = Enumerable.Range(0, Accounts).ToArray();

    /// <summary>Opens every account with <see cref="OpeningBalance"/> in one batch.</summary>
    public static async Task OpenAccountsAsync(IMixedStorageKVStore<int, Balance> store)
    {
        var opening = new WriteBatch<int, Balance>();
        foreach (int account in AccountIds)
        {
            opening.Upsert(account, new Balance(OpeningBalance));
        }

        await store.ApplyBatchAsync(opening);
    }

    /// <summary>Runs eight transferring workers and one auditor until the workers finish; returns every total the auditor saw.</summary>
    public static async Task<IReadOnlyList<long>> TransferWhileAuditingAsync(IMixedStorageKVStore<int, Balance> store, int transfersPerWorker)
    {
        var totalsSeen = new List<long>();
        Task[] transfers = Enumerable.Range(0, 8).Select(worker => Task.Run(() => TransferAsync(store, worker, transfersPerWorker))).ToArray();
        Task auditor = Task.Run(async () =>
        {
            do
            {
                IReadOnlyList<ReadResult<Balance>> snapshot = await store.ReadManyAsync(AccountIds);
                lock (totalsSeen)
                {
                    totalsSeen.Add(snapshot.Sum(account => account.Value.Amount));
                }
            }
            while (!transfers.All(transfer => transfer.IsCompleted));
        });
        await Task.WhenAll(transfers.Append(auditor));
        return totalsSeen;
    }

    /// <summary>Moves random amounts between random pairs of accounts, each move one atomic read-modify-write.</summary>
    private static async Task TransferAsync(IMixedStorageKVStore<int, Balance> store, int seed, int transfers)
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
