using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;
using KeyValueStore.Engine;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Concurrency;

/// <summary>
/// Permits under contention (a key stripe is one permit, the session pool one per session): never more holders than
/// permits, every waiter served (no wake-up lost), cancelled waiters never holding one, waiters served in arrival
/// order, and a store whose writers all share one stripe keeping every write.
/// </summary>
public class AsyncPermitsContentionTests
{
    [Fact]
    public async Task SixtyFourCallersOfOneStripe_HoldItOneAtATime_AndAllGetIn()
    {
        var stripe = new AsyncPermits(1);

        // Some entries hold the stripe across a yield, so the others queue up behind them.
        (long most, long entered) = await TakeAndGiveBackAsync(stripe, callers: 64, entries: 2_000, yieldWhileHeld: (caller, i) => (i + caller) % 7 == 0);

        Assert.Equal(1, most);
        Assert.Equal(64 * 2_000, entered);
        Assert.True(stripe.TryTake(), "the stripe was left held");
    }

    [Fact]
    public async Task FourPermits_SixtyFourCallers_NeverMoreThanFourHolders_AndAllGetIn()
    {
        var permits = new AsyncPermits(4);

        (long most, long entered) = await TakeAndGiveBackAsync(permits, callers: 64, entries: 1_000, yieldWhileHeld: (_, _) => true);

        Assert.InRange(most, 2, 4);
        Assert.Equal(64_000, entered);
        Assert.True(Enumerable.Range(0, 4).All(_ => permits.TryTake()) && !permits.TryTake(), "the permits did not all come back");
    }

    /// <summary>Callers that each take a permit <paramref name="entries"/> times and give it back; returns the most holders at once and the entries made.</summary>
    private static async Task<(long MostInside, long Entered)> TakeAndGiveBackAsync(AsyncPermits permits, int callers, int entries, Func<int, int, bool> yieldWhileHeld)
    {
        int inside = 0;
        long most = 0;
        long entered = 0;
        await Task.WhenAll(Enumerable.Range(0, callers).Select(caller => Task.Run(async () =>
        {
            for (int i = 0; i < entries; i++)
            {
                await permits.TakeAsync(CancellationToken.None);
                ConcurrentMax.RaiseTo(ref most, Interlocked.Increment(ref inside));
                if (yieldWhileHeld(caller, i))
                {
                    await Task.Yield();
                }

                Interlocked.Increment(ref entered);
                Interlocked.Decrement(ref inside);
                permits.Release();
            }
        })));

        return (most, entered);
    }

    [Fact]
    public async Task WaitersCancelledAtRandom_NeverHoldTheStripe_AndEveryOtherWaiterGetsIn()
    {
        var stripe = new AsyncPermits(1);
        const int Callers = 32;
        const int Attempts = 1_000;
        int inside = 0;
        long most = 0;
        long entered = 0;
        long cancelled = 0;

        await Task.WhenAll(Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            var random = new Random(caller);
            for (int i = 0; i < Attempts; i++)
            {
                using var cancellation = new CancellationTokenSource();
                if (random.Next(3) == 0)
                {
                    cancellation.CancelAfter(TimeSpan.FromTicks(random.Next(1, 2_000)));
                }

                try
                {
                    await stripe.TakeAsync(cancellation.Token);
                }
                catch (OperationCanceledException)
                {
                    Interlocked.Increment(ref cancelled);
                    continue;
                }

                ConcurrentMax.RaiseTo(ref most, Interlocked.Increment(ref inside));
                await Task.Yield();
                Interlocked.Increment(ref entered);
                Interlocked.Decrement(ref inside);
                stripe.Release();
            }
        })));

        Assert.Equal(1, most);
        Assert.True(cancelled > 0, "no wait was cancelled, so the test proves nothing about cancellation");
        Assert.Equal((long)Callers * Attempts, entered + cancelled);
        Assert.True(stripe.TryTake(), "a cancelled waiter left the stripe held");
    }

    [Fact]
    public async Task Waiters_GetTheStripeInTheOrderTheyArrived()
    {
        var stripe = new AsyncPermits(1);
        Assert.True(stripe.TryTake());
        var order = new List<int>();
        Task[] waiters = Enumerable.Range(0, 5).Select(waiter => WaitThenRecordAsync(waiter)).ToArray();
        Assert.All(waiters, w => Assert.False(w.IsCompleted));

        stripe.Release();
        await Task.WhenAll(waiters);

        Assert.Equal([0, 1, 2, 3, 4], order);

        async Task WaitThenRecordAsync(int waiter)
        {
            await stripe.TakeAsync(CancellationToken.None);
            lock (order)
            {
                order.Add(waiter);
            }

            stripe.Release();
        }
    }

    /// <summary>Sixteen writers of keys that all fall in one stripe: each key ends with its last value, nothing is lost.</summary>
    [Fact]
    public async Task WritersOfKeysSharingOneStripe_KeepEveryLastWrite()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(temp.Path);
        await using FasterRecordStore store = StoreFactory.Open(options);
        var stripes = new KeyStripeLocks(options.IndexNumBuckets);
        int target = stripes.StripeOf(BitConverter.GetBytes(0));
        int[] keys = Enumerable.Range(0, 1_000_000).Where(key => stripes.StripeOf(BitConverter.GetBytes(key)) == target).Take(16).ToArray();
        Assert.Equal(16, keys.Length);
        const int Rounds = 300;

        await Task.WhenAll(keys.Select(key => Task.Run(async () =>
        {
            for (int round = 0; round < Rounds; round++)
            {
                await store.UpsertAsync(BitConverter.GetBytes(key), BitConverter.GetBytes(round));
            }
        })));

        foreach (int key in keys)
        {
            (bool found, KeyValueStore.Storage.PooledBuffer value) = await store.ReadAsync(BitConverter.GetBytes(key));
            Assert.True(found, $"key {key} was lost");
            Assert.Equal(Rounds - 1, BitConverter.ToInt32(value.Span));
            value.Return();
        }
    }
}
