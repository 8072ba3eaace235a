using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Concurrency;

public class SessionPoolTests
{
    private const int StoredKeys = 1_000;
    private sealed class CountingSession : IDisposable
    {
        public bool Disposed { get; private set; }

        public void Dispose() => Disposed = true;
    }

    /// <summary>A real read of <paramref name="key"/> in <paramref name="session"/>, waiting for the disk if it must.</summary>
    private static async ValueTask<(FASTER.core.Status Status, PooledBuffer Value)> ReadInAsync(FASTER.core.ClientSession<FASTER.core.SpanByte, FASTER.core.SpanByte, FASTER.core.SpanByte, PooledBuffer, FASTER.core.Empty, RecordFunctions> session, byte[] key) =>
        PinnedRecord.TryRead(session, key, locate: false, out FASTER.core.Status status, out PooledBuffer value)
            ? (status, value)
            : await PendingRead.CompleteAsync(session);

    /// <summary>As SemaphoreSlim did before the pool counted with AsyncPermits: a cancelled caller's operation is never issued.</summary>
    [Fact]
    public async Task Rent_WithATokenAlreadyCancelled_Throws_EvenWithASessionFree()
    {
        using var pool = new SessionPool<CountingSession>(2, () => new CountingSession());

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await pool.RentAsync(new CancellationToken(canceled: true)));

        Assert.Equal(0, pool.CreatedCount);
        using SessionPool<CountingSession>.Scope first = await pool.RentAsync();
        using SessionPool<CountingSession>.Scope second = await pool.RentAsync();
        Assert.NotSame(first.Session, second.Session);
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
    public async Task ASessionReturnedOnOneProcessor_ServesARenterOnAnother_WhenItIsTheOnlyOne()
    {
        int processor = 0;
        using var pool = new SessionPool<CountingSession>(1, () => new CountingSession(), new CoreLocalSlots<CountingSession>(2, () => processor));
        SessionPool<CountingSession>.Scope first = await pool.RentAsync();
        first.Dispose();

        processor = 1;
        using SessionPool<CountingSession>.Scope second = await pool.RentAsync().AsTask().WaitAsync(TimeSpan.FromMinutes(1));

        Assert.Same(first.Session, second.Session);
        Assert.Equal(1, pool.CreatedCount);
    }

    [Fact]
    public async Task ASessionReturnedWhileARenterOnAnotherProcessorWaits_GoesToThatRenter_NotToItsProcessorsSlots()
    {
        int processor = 0;
        using var pool = new SessionPool<CountingSession>(1, () => new CountingSession(), new CoreLocalSlots<CountingSession>(2, () => processor));
        SessionPool<CountingSession>.Scope held = await pool.RentAsync();

        processor = 1;
        ValueTask<SessionPool<CountingSession>.Scope> waiting = pool.RentAsync();
        Assert.False(waiting.IsCompleted);
        processor = 0;
        held.Dispose();

        using SessionPool<CountingSession>.Scope served = await waiting.AsTask().WaitAsync(TimeSpan.FromMinutes(1));
        Assert.Same(held.Session, served.Session);
        Assert.Equal(1, pool.Waits);
    }

    [Fact]
    public async Task ManyCallersOnSimulatedProcessors_MoreThanSessions_AreAllServed_WithinTheBound()
    {
        const int Capacity = 3;
        const int Callers = 16;
        using var pool = new SessionPool<CountingSession>(Capacity, () => new CountingSession(), new CoreLocalSlots<CountingSession>(4, () => Environment.CurrentManagedThreadId % 4));
        var inUse = new ConcurrentDictionary<CountingSession, bool>();
        int served = 0;

        // An awaited start, not a Barrier: sixteen pool threads blocked at once would wait seconds for the pool to grow.
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task callers = Task.WhenAll(Enumerable.Range(0, Callers).Select(_ => Task.Run(async () =>
        {
            await go.Task;
            for (int i = 0; i < 2_000; i++)
            {
                using SessionPool<CountingSession>.Scope lease = await pool.RentAsync();
                Assert.True(inUse.TryAdd(lease.Session, true), "a session was handed to two callers at once");
                if (i % 64 == 0)
                {
                    await Task.Yield();
                }

                inUse.TryRemove(lease.Session, out bool _);
                Interlocked.Increment(ref served);
            }
        })));
        go.SetResult();
        await callers.WaitAsync(TimeSpan.FromMinutes(2));

        Assert.Equal(Callers * 2_000, served);
        Assert.InRange(pool.CreatedCount, 1, Capacity);
        Assert.True(pool.Waits > 0, "no rent had to wait, so the hand-over between parked sessions and waiters was never tested");
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

    [Fact]
    public async Task SixteenTimesMoreCallersThanSessions_HoldingThemAcrossDiskReads_NeverExceedTheBound_AndAreAllServed()
    {
        const int Capacity = 4;
        const int Callers = 64;
        const int RentsPerCaller = 25;
        using var temp = new TempDirectory();
        await using var store = await OpenStoreWithRecordsOnDiskAsync(temp.Path, Capacity);
        var pool = store.Sessions;
        var inUse = new ConcurrentDictionary<object, bool>(ReferenceEqualityComparer.Instance);
        int holders = 0;
        long mostHolders = 0;
        int rentsThatWaited = 0;
        int served = 0;
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        var callers = Enumerable.Range(0, Callers).Select(caller => Task.Run(async () =>
        {
            var random = new Random(caller);
            await go.Task;
            for (int i = 0; i < RentsPerCaller; i++)
            {
                var renting = pool.RentAsync();
                if (!renting.IsCompleted)
                {
                    Interlocked.Increment(ref rentsThatWaited);
                }

                using var lease = await renting;

                // Counted in after the rent and out before the return, so the count never exceeds the sessions truly held.
                ConcurrentMax.RaiseTo(ref mostHolders, Interlocked.Increment(ref holders));
                Assert.True(inUse.TryAdd(lease.Session, true), "a session was handed to two callers at once");

                // A real read in the rented session, most records being on disk. A disk read's completion tends to resume
                // its caller before any other, so the yield (to the back of the thread pool's queue) is what lets the
                // other callers run while this one holds its session, as they would while reads wait on a slower disk.
                await Task.Yield();
                (FASTER.core.Status status, PooledBuffer value) = await ReadInAsync(lease.Session, Key(random.Next(StoredKeys)));
                Assert.True(status.Found, "a stored key was not found");
                value.Return();

                inUse.TryRemove(lease.Session, out _);
                Interlocked.Decrement(ref holders);
                Interlocked.Increment(ref served);
            }
        })).ToList();
        go.SetResult();
        await Task.WhenAll(callers).WaitAsync(TimeSpan.FromMinutes(2));

        Assert.Equal(Callers * RentsPerCaller, served);
        Assert.True(rentsThatWaited > 0, "no rent had to wait, so the bound was never tested");
        Assert.InRange(mostHolders, 1, Capacity);
        Assert.InRange(pool.CreatedCount, 1, Capacity);
    }

    [Fact]
    public async Task WaitersCancelledWhileEverySessionIsHeld_LeaveWithoutOne_AndEveryOtherWaiterIsServed()
    {
        const int Capacity = 4;
        const int Waiters = 32;
        using var temp = new TempDirectory();
        await using var store = await OpenStoreWithRecordsOnDiskAsync(temp.Path, Capacity);
        var pool = store.Sessions;
        var held = new List<IDisposable>();
        for (int i = 0; i < Capacity; i++)
        {
            held.Add(await pool.RentAsync());
        }

        var cancellations = Enumerable.Range(0, Waiters).Select(_ => new CancellationTokenSource()).ToList();
        var waiters = Enumerable.Range(0, Waiters)
            .Select(i => pool.RentAsync(i % 2 == 0 ? cancellations[i].Token : CancellationToken.None).AsTask())
            .ToList();
        Assert.All(waiters, waiter => Assert.False(waiter.IsCompleted, "a caller got a session beyond the bound"));

        // Every other waiter is cancelled while it waits; the others start waiting for their turn, then the held sessions
        // come back at once.
        for (int i = 0; i < Waiters; i += 2)
        {
            await cancellations[i].CancelAsync();
        }

        int holders = 0;
        long mostHolders = 0;
        var served = Enumerable.Range(0, Waiters).Where(i => i % 2 == 1).Select(async i =>
        {
            using var lease = await waiters[i];
            ConcurrentMax.RaiseTo(ref mostHolders, Interlocked.Increment(ref holders));
            (FASTER.core.Status status, PooledBuffer value) = await ReadInAsync(lease.Session, Key(i));
            Assert.True(status.Found, $"key {i} was not found");
            value.Return();
            Interlocked.Decrement(ref holders);
        }).ToList();
        held.ForEach(lease => lease.Dispose());

        for (int i = 0; i < Waiters; i += 2)
        {
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiters[i]);
        }

        await Task.WhenAll(served).WaitAsync(TimeSpan.FromMinutes(2));
        Assert.InRange(mostHolders, 1, Capacity);

        // No session went to a cancelled waiter and stayed there: the whole bound can be rented again at once.
        var again = Enumerable.Range(0, Capacity).Select(_ => pool.RentAsync()).ToList();
        Assert.All(again, rent => Assert.True(rent.IsCompletedSuccessfully, "a session stayed with a cancelled waiter"));
        again.ForEach(rent => rent.Result.Dispose());
        Assert.InRange(pool.CreatedCount, 1, Capacity);
        cancellations.ForEach(cancellation => cancellation.Dispose());
    }

    /// <summary>A store whose pool holds <paramref name="capacity"/> sessions, with most of its records on disk (8 KB of memory).</summary>
    private static async Task<FasterRecordStore> OpenStoreWithRecordsOnDiskAsync(string directory, int capacity)
    {
        var options = StoreFactory.LowMemory(directory);
        options.SessionPoolSize = capacity;
        var store = StoreFactory.Open(options);
        for (int key = 0; key < StoredKeys; key++)
        {
            await store.UpsertAsync(Key(key), new byte[100]);
        }

        return store;
    }

    private static byte[] Key(int key) => BitConverter.GetBytes(key);
}
