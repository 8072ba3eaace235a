using System;
using System.Threading;

namespace KeyValueStore.Diagnostics;

/// <summary>
/// Counts one kind of the store's background work (compaction passes, checkpoints): how many run now and how many have
/// started. Two marks taken around an operation tell whether it overlapped any: the load test splits its latencies so,
/// to set what writers meet during compaction and checkpoints beside what they meet when neither runs.
/// </summary>
internal sealed class BackgroundWork
{
    private int _running;
    private long _started;

    /// <summary>Counts a piece of work as started and running until the scope is disposed.</summary>
    public Running Begin()
    {
        Interlocked.Increment(ref _started);
        Interlocked.Increment(ref _running);
        return new Running(this);
    }

    /// <summary>How much of this work runs now, and how much has started so far.</summary>
    public BackgroundWorkMark Mark() => new(Volatile.Read(ref _running), Volatile.Read(ref _started));

    /// <summary>One piece of work running; disposing it ends it.</summary>
    public readonly struct Running(BackgroundWork work) : IDisposable
    {
        public void Dispose() => Interlocked.Decrement(ref work._running);
    }
}

/// <summary>A reading of a <see cref="BackgroundWork"/>.</summary>
/// <param name="Running">How many pieces of the work ran at the time.</param>
/// <param name="Started">How many had started since the store opened.</param>
internal readonly record struct BackgroundWorkMark(int Running, long Started)
{
    /// <summary>Whether any of the work ran at some time between this mark and <paramref name="end"/>, a later one.</summary>
    public bool OverlapsUntil(BackgroundWorkMark end) => Running > 0 || end.Running > 0 || end.Started != Started;
}
