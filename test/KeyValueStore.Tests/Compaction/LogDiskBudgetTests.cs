using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Compaction;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using KeyValueStore.Tests.TypedStore;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Compaction;

/// <summary>
/// <see cref="MixedStorageKVStoreOptions.LogDiskBudgetBytes"/> on real files: writes wait for compaction's room while the
/// live data fits, are refused with <see cref="LogDiskBudgetExceededException"/> once it fills the budget, and are
/// accepted again after deletes; nothing acknowledged is lost on the way.
/// </summary>
public class LogDiskBudgetTests
{
    /// <summary>Two 1 MB segments: the least a store of 8 KB of memory and 1 MB segments may be given.</summary>
    private const long Budget = 2L << 20;

    private const int ValueBytes = 1_000;

    private static MixedStorageKVStoreOptions Budgeted(string directory, long budget)
    {
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(directory);
        options.LogDiskBudgetBytes = budget;
        options.TimeBetweenLogCompactionsMS = 60_000;
        return options;
    }

    private static byte[] Value(int key, int round)
    {
        byte[] value = new byte[ValueBytes];
        Array.Fill(value, (byte)(key * 31 + round));
        BitConverter.TryWriteBytes(value, key);
        BitConverter.TryWriteBytes(value.AsSpan(4), round);
        return value;
    }

    [Fact]
    public async Task OverwritesOfLiveDataThatFits_AllSucceed_AndTheLogStaysWithinTheBudgetAndOneSlice()
    {
        // 1,500 records of about 1 KB: 1.5 MB live. Without a budget back-pressure bounds the log at about three times
        // that (4.5 MB); a budget of 3 MB must hold it to the budget, plus one slice's copies and the writes in flight.
        const int Keys = 1_500;
        const int Rounds = 12;
        const int Writers = 8;
        const long Budget3MB = 3L << 20;
        using var temp = new TempDirectory();
        await using FasterRecordStore store = StoreFactory.Open(Budgeted(temp.Path, Budget3MB));
        long largestLog = 0;

        for (int round = 0; round < Rounds; round++)
        {
            int r = round;
            await Task.WhenAll(Enumerable.Range(0, Writers).Select(writer => Task.Run(async () =>
            {
                for (int key = writer; key < Keys; key += Writers)
                {
                    await store.UpsertAsync(BitConverter.GetBytes(key), Value(key, r));
                    ConcurrentMax.RaiseTo(ref largestLog, store.Compactor.LogBytes);
                }
            })));
        }

        long allowed = Budget3MB + (Budget3MB / CompactionPass.BudgetPerSlice) + (Writers * 2 * 1_024);
        Assert.True(largestLog <= allowed, $"the log reached {largestLog} bytes against a budget of {Budget3MB} (allowed with one slice and the writes in flight: {allowed})");
        for (int key = 0; key < Keys; key++)
        {
            (bool found, PooledBuffer value) = await store.ReadAsync(BitConverter.GetBytes(key));
            Assert.True(found, $"key {key} is missing");
            Assert.True(value.Span.SequenceEqual(Value(key, Rounds - 1)), $"key {key} holds another value");
            value.Return();
        }
    }

    /// <summary>
    /// The engine opened with a budget and no scheduled compaction (the options validator refuses that shape, but the
    /// engine can be built so): a write past the budget is refused at once, and the message says why, not that
    /// compaction tried and failed.
    /// </summary>
    [Fact]
    public async Task WithNoCompactionScheduled_AWritePastTheBudget_IsRefused_SayingNoCompactionIsScheduled()
    {
        using var temp = new TempDirectory();
        StoreSettings settings = StoreSettingsValidator.Validate(Budgeted(temp.Path, Budget)) with { TimeBetweenLogCompactions = null };
        await using FasterRecordStore store = StoreOpener.Open(settings, NullLogger.Instance);

        LogDiskBudgetExceededException? refused = null;
        int written = 0;
        for (; written < 10_000 && refused is null; written++)
        {
            try
            {
                await store.UpsertAsync(BitConverter.GetBytes(written), Value(written, 0)).AsTask().WaitAsync(TimeSpan.FromSeconds(30));
            }
            catch (LogDiskBudgetExceededException e)
            {
                refused = e;
            }
        }

        Assert.NotNull(refused);
        Assert.Contains("no compaction is scheduled", refused.Message, StringComparison.Ordinal);
        Assert.Contains("TimeBetweenLogCompactionsMS", refused.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("several attempts", refused.Message, StringComparison.Ordinal);
        (bool found, PooledBuffer value) = await store.ReadAsync(BitConverter.GetBytes(0));
        Assert.True(found);
        Assert.Equal(Value(0, 0), value.Memory.ToArray());
        value.Return();
    }

    [Fact]
    public async Task WritesPastLiveDataThatFillsTheBudget_AreRefused_WithATypedException_AndNothingStoredIsLost()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, byte[]>(Budgeted(temp.Path, Budget));

        var acknowledged = new List<int>();
        LogDiskBudgetExceededException? refused = null;
        for (int key = 0; key < 10_000 && refused is null; key++)
        {
            try
            {
                await store.UpsertAsync(key, Value(key, 0));
                acknowledged.Add(key);
            }
            catch (LogDiskBudgetExceededException e)
            {
                refused = e;
            }
        }

        Assert.NotNull(refused);
        Assert.Equal(Budget, refused.BudgetBytes);
        Assert.True(refused.LogBytes >= Budget, $"refused at {refused.LogBytes} bytes, under the budget");
        Assert.Contains("LogDiskBudgetBytes", refused.Message, StringComparison.Ordinal);
        Assert.Contains("nothing was written", refused.Message, StringComparison.Ordinal);

        // About as many records as fit: every one acknowledged is there, and the refused one is not.
        Assert.InRange(acknowledged.Count, 1_000, 2_100);
        await AssertHoldsExactlyAsync(store, acknowledged, absent: [acknowledged.Count]);

        // Still full: refused again at once, the same way through a batch; deletes are accepted.
        await Assert.ThrowsAsync<LogDiskBudgetExceededException>(async () => await store.UpsertAsync(-1, Value(-1, 0)));
        await Assert.ThrowsAsync<LogDiskBudgetExceededException>(async () => await store.ApplyBatchAsync(new WriteBatch<int, byte[]>().Upsert(-2, Value(-2, 0))));
        await Assert.ThrowsAsync<LogDiskBudgetExceededException>(async () => await store.UpdateManyAsync([-3], (_, batch) => batch.Upsert(-3, Value(-3, 0))));

        // Reads never wait for room: several keys at once too.
        IReadOnlyList<ReadResult<byte[]>> many = await store.ReadManyAsync([acknowledged[0], acknowledged[^1]]);
        Assert.Equal(Value(acknowledged[0], 0), many[0].Value);
        Assert.Equal(Value(acknowledged[^1], 0), many[1].Value);
        var deleted = acknowledged.Where(key => key % 2 == 0).ToList();
        await store.ApplyBatchAsync(new WriteBatch<int, byte[]>().Delete(deleted[0]).Delete(deleted[1]));
        foreach (int key in deleted.Skip(2))
        {
            Assert.Equal(KeyStatus.Found, await store.DeleteAsync(key));
        }

        // Half deleted: the next writes get the room compaction gives back.
        var kept = acknowledged.Where(key => key % 2 != 0).ToList();
        for (int key = 20_000; key < 20_200; key++)
        {
            await store.UpsertAsync(key, Value(key, 0));
            kept.Add(key);
        }

        await AssertHoldsExactlyAsync(store, kept, absent: deleted.Take(50).Append(-1).Append(-2).Append(-3));
    }

    private static async Task AssertHoldsExactlyAsync(MixedStorageKVStore<int, byte[]> store, IEnumerable<int> present, IEnumerable<int> absent)
    {
        foreach (int key in present)
        {
            ReadResult<byte[]> read = await store.ReadAsync(key);
            Assert.True(read.Found, $"key {key} is missing");
            Assert.Equal(Value(key, 0), read.Value);
        }

        foreach (int key in absent)
        {
            Assert.False((await store.ReadAsync(key)).Found, $"key {key} is there");
        }
    }
}
