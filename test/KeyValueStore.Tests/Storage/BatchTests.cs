using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Durability;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Durability;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

/// <summary>Atomic batches (issue 7): what one batch does, what it refuses, and that concurrent batches keep an invariant.</summary>
public class BatchTests
{
    private const int Accounts = 20;
    private const long OpeningBalance = 1_000;

    [Fact]
    public async Task ABatch_AppliesEveryWrite_InOrder_SoTheLastWriteOfAKeyWins()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await store.UpsertAsync(Key(3), Text("old"));

        await store.ApplyBatchAsync(
        [
            BatchWrite.Upsert(Key(1), Text("first")),
            BatchWrite.Upsert(Key(2), Text("two")),
            BatchWrite.Delete(Key(3)),
            BatchWrite.Upsert(Key(1), Text("last")),
        ]);

        Assert.Equal("last", await ReadTextAsync(store, 1));
        Assert.Equal("two", await ReadTextAsync(store, 2));
        Assert.Null(await ReadTextAsync(store, 3));
    }

    [Fact]
    public async Task ACommitModeBatchOfMoreThanTwoGiB_IsRefusedBeforeAnyOfItIsApplied_AndTheStoreStaysUsable()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = DurableStores.Options(temp.Path, DurabilityMode.Commit);
        options.PageSizeBits = 16;
        options.MemorySizeBits = 20;
        options.SegmentSizeBits = 24;
        await using var store = StoreFactory.Open(options);

        // 60,000 writes of one shared 40,000-byte value: 2.4 GB encoded, with little memory for the test itself.
        byte[] value = new byte[40_000];
        var writes = Enumerable.Range(0, 60_000).Select(i => BatchWrite.Upsert(Key(i), value)).ToList();
        long tailBefore = store.FasterKV.Log.TailAddress;

        var error = await Assert.ThrowsAsync<BatchTooLargeException>(() => store.ApplyBatchAsync(writes).AsTask());

        Assert.True(error.EncodedBytes > 2L * 1024 * 1024 * 1024, $"the batch encodes to {error.EncodedBytes} bytes");
        Assert.Contains(BatchTooLargeException.MaxEncodedBytes.ToString(System.Globalization.CultureInfo.InvariantCulture), error.Message, StringComparison.Ordinal);
        Assert.Equal(tailBefore, store.FasterKV.Log.TailAddress);
        Assert.Null(await ReadTextAsync(store, 0));
        await store.ApplyBatchAsync([BatchWrite.Upsert(Key(1), Text("small"))]);
        Assert.Equal("small", await ReadTextAsync(store, 1));
    }

    [Fact]
    public async Task AnEmptyBatch_WritesNothing_AndInCommitModeWaitsForNoFlush()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(DurableStores.Options(temp.Path, DurabilityMode.Commit));
        Checkpointer checkpointer = store.Checkpointer!;
        WriteAheadLog log = store.WriteAheadLog!;
        long checkpointsBefore = checkpointer.CheckpointCount;
        long commitsBefore = log.CommitCount;
        long tailBefore = log.TailAddress;

        await store.ApplyBatchAsync([]);

        Assert.Equal(tailBefore, log.TailAddress);
        Assert.Equal(commitsBefore, log.CommitCount);
        Assert.Equal(checkpointsBefore, checkpointer.CheckpointCount);
    }

    [Fact]
    public async Task ABatchOverTheLimit_IsRefused_AndNothingOfItIsWritten()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        var writes = Enumerable.Range(0, BatchTooLargeException.MaxWrites + 1).Select(i => BatchWrite.Upsert(Key(i), Text("v"))).ToList();

        var error = await Assert.ThrowsAsync<BatchTooLargeException>(() => store.ApplyBatchAsync(writes).AsTask());

        Assert.Equal(BatchTooLargeException.MaxWrites + 1, error.Writes);
        Assert.Contains("at most 65535", error.Message, StringComparison.Ordinal);
        Assert.Null(await ReadTextAsync(store, 0));
        await store.ApplyBatchAsync(writes.Take(BatchTooLargeException.MaxWrites).ToList());
        Assert.Equal("v", await ReadTextAsync(store, BatchTooLargeException.MaxWrites - 1));
    }

    [Fact]
    public async Task ABatchWithARecordLargerThanAPage_IsRefused_AndNothingOfItIsWritten()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));

        await Assert.ThrowsAsync<RecordTooLargeException>(() => store.ApplyBatchAsync(
        [
            BatchWrite.Upsert(Key(1), Text("fits")),
            BatchWrite.Upsert(Key(2), new byte[8_192]),
        ]).AsTask());

        Assert.Null(await ReadTextAsync(store, 1));
    }

    [Fact]
    public async Task AnUpdateThatWritesAKeyItDidNotRead_IsRefused_AndWritesNothing()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));

        await Assert.ThrowsAsync<ArgumentException>(() => store.UpdateManyAsync(
            [Key(1)],
            _ => [BatchWrite.Upsert(Key(1), Text("a")), BatchWrite.Upsert(Key(999_999), Text("b"))]).AsTask());

        Assert.Null(await ReadTextAsync(store, 1));
    }

    [Fact]
    public async Task BankTransfers_BesideSnapshotsAndCompaction_NeverChangeTheTotal()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await OpenAccountsAsync(store);

        BankRun run = await RunBankAsync(store, async () => await store.Compactor.CompactNowAsync());

        Assert.True(run.SnapshotsDuringTransfers > 0, "no snapshot was taken while transfers ran, so isolation was not tested");
        long[] balances = await SnapshotAsync(store);
        Assert.Equal(Accounts * OpeningBalance, balances.Sum());
        Assert.Equal(run.Balances, balances);
    }

    [Fact]
    public async Task BankTransfers_BesideCheckpoints_KeepTheTotalAcrossAReopen()
    {
        using var temp = new TempDirectory();
        var options = DurableStores.Options(temp.Path, DurabilityMode.Checkpoint);
        BankRun run;
        await using (var store = StoreFactory.Open(options))
        {
            await OpenAccountsAsync(store);
            run = await RunBankAsync(store, () => store.CheckpointAsync());
            Assert.True(run.SnapshotsDuringTransfers > 0, "no snapshot was taken while transfers ran, so isolation was not tested");
        }

        await using var reopened = StoreFactory.Open(options);
        long[] balances = await SnapshotAsync(reopened);
        Assert.Equal(Accounts * OpeningBalance, balances.Sum());
        Assert.Equal(run.Balances, balances);
    }

    /// <summary>
    /// Eight tasks move random amounts between random pairs of accounts while two take snapshots of every account, and
    /// <paramref name="meanwhile"/> runs in a loop. Every snapshot must add up to the opening total. Returns how many
    /// snapshots fell wholly within the transfers, and what each account must hold: a transfer is an atomic
    /// read-modify-write, so its effect on a balance does not depend on the order transfers ran in.
    /// </summary>
    private static async Task<BankRun> RunBankAsync(FasterRecordStore store, Func<Task> meanwhile)
    {
        long[] expected = Enumerable.Repeat(OpeningBalance, Accounts).ToArray();
        using var stop = new CancellationTokenSource();
        int transfersRunning = 0;
        int snapshotsDuringTransfers = 0;
        int readersToStart = 2;
        var bothReading = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var readers = Enumerable.Range(0, 2).Select(_ => Task.Run(async () =>
        {
            bool first = true;
            while (!stop.IsCancellationRequested)
            {
                bool during = Volatile.Read(ref transfersRunning) > 0;
                long total = (await SnapshotAsync(store)).Sum();
                Assert.Equal(Accounts * OpeningBalance, total);
                if (during && Volatile.Read(ref transfersRunning) > 0)
                {
                    Interlocked.Increment(ref snapshotsDuringTransfers);
                }

                if (first)
                {
                    if (Interlocked.Decrement(ref readersToStart) == 0)
                    {
                        bothReading.SetResult();
                    }

                    first = false;
                }

                await Task.Yield();
            }
        })).ToList();
        var background = Task.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                await meanwhile();
            }
        });

        // Transfers start once both readers are reading, so the snapshots surely overlap them. A reader that ends first
        // has failed (they run until stopped): awaiting it reports its failure instead of a wait that merely ran out.
        Task firstDone = await Task.WhenAny(readers.Append(bothReading.Task)).WaitAsync(TimeSpan.FromMinutes(2));
        await firstDone;
        Assert.True(firstDone == bothReading.Task, $"a reader ended ({firstDone.Status}) before both were reading");
        Interlocked.Exchange(ref transfersRunning, 1);
        var transfers = Enumerable.Range(0, 8).Select(worker => Task.Run(async () =>
        {
            var random = new Random(worker);
            for (int i = 0; i < 1_000; i++)
            {
                // Operations in memory complete synchronously; yielding lets the readers run in between on few cores.
                await Task.Yield();
                int from = random.Next(Accounts);
                int to = (from + 1 + random.Next(Accounts - 1)) % Accounts;
                long amount = random.Next(1, 50);
                await store.UpdateManyAsync([Key(from), Key(to)], balances =>
                [
                    BatchWrite.Upsert(Key(from), Amount(BitConverter.ToInt64(balances[0]) - amount)),
                    BatchWrite.Upsert(Key(to), Amount(BitConverter.ToInt64(balances[1]) + amount)),
                ]);
                Interlocked.Add(ref expected[from], -amount);
                Interlocked.Add(ref expected[to], amount);
            }
        })).ToList();

        await Task.WhenAll(transfers);
        Interlocked.Exchange(ref transfersRunning, 0);
        await stop.CancelAsync();
        await Task.WhenAll(readers.Append(background));
        return new BankRun(snapshotsDuringTransfers, expected);
    }

    private static Task OpenAccountsAsync(FasterRecordStore store) =>
        store.ApplyBatchAsync(Enumerable.Range(0, Accounts).Select(account => BatchWrite.Upsert(Key(account), Amount(OpeningBalance))).ToList()).AsTask();

    private static async Task<long[]> SnapshotAsync(FasterRecordStore store)
    {
        var results = await store.ReadManyAsync(Enumerable.Range(0, Accounts).Select(account => (ReadOnlyMemory<byte>)Key(account)).ToList());
        return results.Select(result =>
        {
            Assert.True(result.Found, "an account is missing");
            long balance = BitConverter.ToInt64(result.Value.Span);
            result.Value.Return();
            return balance;
        }).ToArray();
    }

    private static async Task<string?> ReadTextAsync(FasterRecordStore store, int key)
    {
        (bool found, PooledBuffer value) = await store.ReadAsync(Key(key));
        if (!found)
        {
            return null;
        }

        string text = System.Text.Encoding.UTF8.GetString(value.Span);
        value.Return();
        return text;
    }

    private static byte[] Key(int key) => BitConverter.GetBytes(key);

    private static byte[] Text(string text) => System.Text.Encoding.UTF8.GetBytes(text);

    private static byte[] Amount(long amount) => BitConverter.GetBytes(amount);

    private sealed record BankRun(int SnapshotsDuringTransfers, long[] Balances);
}
