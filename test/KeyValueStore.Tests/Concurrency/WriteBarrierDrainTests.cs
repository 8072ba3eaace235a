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
