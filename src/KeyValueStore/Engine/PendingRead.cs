using System;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Finishes a read <see cref="PinnedRecord.TryRead"/> left pending on the disk. The session runs nothing else
/// meanwhile, so the one output it completes is that read's.
/// </summary>
/// <remarks>
/// Not FASTER's <c>CompletePendingWithOutputsAsync</c>: it yields the thread (<c>Thread.Yield</c>) once more after the
/// read is ready, before it looks again, and on two busy cores that put a read's median from 9 to 48 µs (the load
/// test, docs/benchmarks.md). Here the wait is for the read to be ready, then its completion runs at once. A read FASTER
/// had to issue again is still pending after that: the loop waits for it too.
/// </remarks>
internal static class PendingRead
{
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public static async ValueTask<(Status Status, PooledBuffer Output)> CompleteAsync(StoreSession session)
    {
        while (true)
        {
            await session.ReadyToCompletePendingAsync().ConfigureAwait(false);
            bool nothingPending = session.CompletePendingWithOutputs(out var completed, wait: false);
            using (completed)
            {
                if (completed.Next())
                {
                    return (completed.Current.Status, completed.Current.Output);
                }
            }

            // Rather than wait for good on a read that is no longer there.
            if (nothingPending)
            {
                throw new InvalidOperationException("A read FASTER left pending ended without an output.");
            }
        }
    }
}
