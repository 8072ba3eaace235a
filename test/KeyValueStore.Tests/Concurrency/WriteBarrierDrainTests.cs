using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Tests.Concurrency;

/// <summary>
/// The barrier counts writers on per-processor cells (<see cref="PerProcessorCount"/>); a close must still wait for every
/// writer in flight, whatever cell it counted on, and writers that waited must count out where <see cref="WriteBarrier.Open"/>
/// counted them in.
/// </summary>
public class WriteBarrierDrainTests
{
    /// <summary>
    /// The eight-thread test below cannot see a close that drains with one writer still inside: that writer leaves within
    /// microseconds, before anything can look. Here every writer stays inside until the test lets it go, one at a time.
    /// </summary>
    [Fact]
    public async Task ACloseDrains_OnlyWhenTheLastWriterInFlightHasLeft_WhicheverWayEachCameIn()
    {
        var barrier = new WriteBarrier();
        WriteBarrier.Scope first = await barrier.EnterScopeAsync();
        WriteBarrier.Scope second = await barrier.EnterScopeAsync();
        await barrier.EnterWriteAsync(); // the unscoped way in, on the shared cell

        Task firstClose = barrier.CloseAsync();
        first.Dispose();
        Assert.False(firstClose.IsCompleted, "the close drained with two writers inside");
        barrier.ExitWrite();
        Assert.False(firstClose.IsCompleted, "the close drained with a scoped writer inside");
        second.Dispose();
        await firstClose.WaitAsync(TimeSpan.FromSeconds(10));

        // A writer that arrives while the barrier is closed is admitted by Open, which counts it in on the shared cell.
        ValueTask<WriteBarrier.Scope> admitted = barrier.EnterScopeAsync();
        Assert.False(admitted.IsCompleted, "a writer got past a closed barrier");
        barrier.Open();
        WriteBarrier.Scope third = await admitted.AsTask().WaitAsync(TimeSpan.FromSeconds(10));
        WriteBarrier.Scope fourth = await barrier.EnterScopeAsync();

        Task drained = barrier.CloseAsync();
        Assert.False(drained.IsCompleted, "the close drained with two writers inside");
        fourth.Dispose();
        Assert.False(drained.IsCompleted, "the close drained with the writer Open admitted still inside");
        third.Dispose();
        await drained.WaitAsync(TimeSpan.FromSeconds(10));
        barrier.Open();

        // One writer inside when the close begins: the close's own count must see it, not only the writers' exits.
        WriteBarrier.Scope last = await barrier.EnterScopeAsync();
        Task lastClose = barrier.CloseAsync();
        Assert.False(lastClose.IsCompleted, "the close drained with one writer inside");
        last.Dispose();
        await lastClose.WaitAsync(TimeSpan.FromSeconds(10));
        barrier.Open();
    }

    [Fact]
    public async Task WritersOnEightThreads_AreNeverInside_WhileACloseThatHasDrainedHoldsTheBarrier()
    {
        var barrier = new WriteBarrier();
        int inside = 0;
        int stop = 0;
        long writes = 0;
        int drainedWhileInside = 0;

        // The current close's drain, published once the close has begun and withdrawn before the barrier opens, so a writer
        // only ever sees the drain of a close that began after it was let in: one that must have waited for it.
        Task? currentDrain = null;

        // Threads of their own: writers that block while the barrier is closed would starve a small thread pool.
        Thread[] writers = Enumerable.Range(0, 8).Select(_ => new Thread(() =>
        {
            while (Volatile.Read(ref stop) == 0)
            {
                ValueTask<WriteBarrier.Scope> entering = barrier.EnterScopeAsync();
                WriteBarrier.Scope scope = entering.IsCompletedSuccessfully ? entering.Result : entering.AsTask().GetAwaiter().GetResult();
                Interlocked.Increment(ref inside);
                for (int look = 0; look < 4; look++)
                {
                    if (Volatile.Read(ref currentDrain) is { IsCompleted: true })
                    {
                        Interlocked.Increment(ref drainedWhileInside);
                    }

                    Thread.SpinWait(5);
                }

                Interlocked.Decrement(ref inside);
                scope.Dispose();
                Interlocked.Increment(ref writes);
            }
        })).ToArray();
        Array.ForEach(writers, writer => writer.Start());

        try
        {
            for (int round = 0; round < 300; round++)
            {
                Task drain = barrier.CloseAsync();
                Volatile.Write(ref currentDrain, drain);
                await drain.WaitAsync(TimeSpan.FromMinutes(1));
                Assert.Equal(0, Volatile.Read(ref inside));
                Thread.SpinWait(200);
                Assert.Equal(0, Volatile.Read(ref inside));
                Volatile.Write(ref currentDrain, null);
                barrier.Open();
                Thread.SpinWait(2_000);
            }
        }
        finally
        {
            // A failed round leaves the barrier closed, with writers waiting on it: let them finish.
            Volatile.Write(ref stop, 1);
            if (barrier.IsClosed)
            {
                barrier.Open();
            }

            Assert.All(writers, writer => Assert.True(writer.Join(TimeSpan.FromMinutes(1)), "a writer never finished"));
        }

        Assert.True(drainedWhileInside == 0, $"writers saw a close drained while they were inside {drainedWhileInside} times");
        Assert.True(Interlocked.Read(ref writes) > 0, "no writer got through, so nothing was tested");

        // Every writer counted itself out on its own cell or on the shared one: a last close drains at once.
        Assert.True(barrier.CloseAsync().IsCompletedSuccessfully, "a writer's count was left behind");
    }
}
