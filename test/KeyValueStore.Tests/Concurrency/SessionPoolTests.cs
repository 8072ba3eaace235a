using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Tests.Concurrency;

public class SessionPoolTests
{
    private sealed class CountingSession : IDisposable
    {
        public bool Disposed { get; private set; }

        public void Dispose() => Disposed = true;
    }

    [Fact]
    public async Task Rent_BeyondCapacity_WaitsUntilASessionIsReturned()
    {
        using var pool = new SessionPool<CountingSession>(1, () => new CountingSession());
        var first = await pool.RentAsync();

        var second = pool.RentAsync();
        Assert.False(second.IsCompleted);

        first.Dispose();
        Assert.Same(first.Session, (await second).Session);
        Assert.Equal(1, pool.CreatedCount);
    }

    [Fact]
    public async Task ManyConcurrentRenters_NeverCreateMoreThanCapacity_NorShareASession()
    {
        const int Capacity = 4;
        using var pool = new SessionPool<CountingSession>(Capacity, () => new CountingSession());
        var inUse = new HashSet<CountingSession>();
        int maxInUse = 0;
        using var barrier = new Barrier(8);

        await Task.WhenAll(Enumerable.Range(0, 8).Select(_ => Task.Run(async () =>
        {
            barrier.SignalAndWait();
            for (int i = 0; i < 2_000; i++)
            {
                var lease = await pool.RentAsync();
                CountingSession session = lease.Session;
                lock (inUse)
                {
                    Assert.True(inUse.Add(session), "a session was handed to two callers at once");
                    maxInUse = Math.Max(maxInUse, inUse.Count);
                }

                lock (inUse)
                {
                    inUse.Remove(session);
                }

                lease.Dispose();
            }
        })));

        Assert.InRange(pool.CreatedCount, 1, Capacity);
        Assert.InRange(maxInUse, 1, Capacity);
    }

    [Fact]
    public async Task Rent_Cancelled_WhileWaiting_ThrowsAndLeavesThePoolWhole()
    {
        using var pool = new SessionPool<CountingSession>(1, () => new CountingSession());
        var held = await pool.RentAsync();
        using var cancellation = new CancellationTokenSource();

        var waiting = pool.RentAsync(cancellation.Token);
        cancellation.Cancel();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.AsTask());
        held.Dispose();
        Assert.Same(held.Session, (await pool.RentAsync()).Session);
    }

    [Fact]
    public async Task Cancelled_ThenReleasedAtOnce_TheCancelledWaiterNeverGetsTheSession()
    {
        // Cancel-then-release back to back: SemaphoreSlim may still grant the cancelled waiter.
        for (int round = 0; round < 500; round++)
        {
            using var pool = new SessionPool<CountingSession>(1, () => new CountingSession());
            var held = await pool.RentAsync();
            using var cancellation = new CancellationTokenSource();
            var cancelledWaiter = pool.RentAsync(cancellation.Token);
            var nextWaiter = pool.RentAsync();

            cancellation.Cancel();
            held.Dispose();

            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelledWaiter.AsTask());
            Assert.Same(held.Session, (await nextWaiter.AsTask().WaitAsync(TimeSpan.FromMinutes(1))).Session);
        }
    }

    [Fact]
    public async Task FailedCreation_DoesNotLeakCapacity()
    {
        int attempts = 0;
        using var pool = new SessionPool<CountingSession>(1, () => ++attempts == 1 ? throw new InvalidOperationException("boom") : new CountingSession());

        await Assert.ThrowsAsync<InvalidOperationException>(() => pool.RentAsync().AsTask());

        var lease = await pool.RentAsync().AsTask().WaitAsync(TimeSpan.FromMinutes(1));
        Assert.NotNull(lease.Session);
    }

    [Fact]
    public async Task Dispose_DisposesIdleSessions_AndRejectsLaterRents()
    {
        var pool = new SessionPool<CountingSession>(2, () => new CountingSession());
        var lease = await pool.RentAsync();
        CountingSession session = lease.Session;
        lease.Dispose();

        pool.Dispose();
        pool.Dispose();

        Assert.True(session.Disposed);
        Assert.Throws<ObjectDisposedException>(() => pool.RentAsync());
    }
}
