using System;
using System.Diagnostics;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;
using KeyValueStore.Durability;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// A store's own journal that runs the first work it runs between checkpoints (a compaction slice) only once the write
/// barrier is closed, or after ten seconds: that slice then starts while compaction holds or pauses the writers.
/// </summary>
internal sealed class BarrierClosedFirstJournal(IWriteJournal inner, WriteBarrier barrier) : PassThroughJournal(inner)
{
    private int _runs;

    public override async Task<T> RunBetweenCheckpointsAsync<T>(Func<Task<T>> work)
    {
        bool first = Interlocked.Increment(ref _runs) == 1;
        var waited = Stopwatch.StartNew();
        while (first && !barrier.IsClosed && waited.Elapsed < TimeSpan.FromSeconds(10))
        {
            await Task.Yield();
        }

        return await Inner.RunBetweenCheckpointsAsync(work);
    }
}
