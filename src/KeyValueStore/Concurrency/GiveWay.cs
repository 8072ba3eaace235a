using System;
using System.Threading;

namespace KeyValueStore.Concurrency;

/// <summary>
/// How background work lets a foreground operation that waits for a core run first: in a compaction slice with time to
/// spare, the copy workers and the scan call <see cref="ToWaitingThreads"/> between records, never inside a FASTER call
/// (<c>Engine/LiveRecordCopier</c>).
/// </summary>
/// <remarks>
/// <para>
/// Why: on a machine with few cores a compaction pass keeps every core busy, and an operation that wakes up then waits
/// for the scheduler to take a core from a copy worker, up to a time slice of several milliseconds. That wait was the
/// foreground's p99.9 beside a pass (updates 389-2,326 µs against 45-61 µs without one under a paced load, issue 18;
/// docs/benchmarks.md, "Compaction gives way between records"). Giving the processor up between records puts a waiting
/// operation first and costs a system call when none waits. It also slows the copies whenever the foreground is busy,
/// which a slice the log's growth hurries cannot afford: such a slice does not give way.
/// </para>
/// <para>
/// Not a lower thread priority, which met the writers' target but made reads far worse: FASTER's threads wait for each
/// other by spinning (a record's bucket latch, a page that must close before the log can grow), so a low-priority copy
/// worker stopped inside FASTER stalls the foreground threads that spin for it, and they in turn keep it from running.
/// </para>
/// </remarks>
internal static class GiveWay
{
    /// <summary>Gives the rest of the thread's time slice to a thread waiting for its core, if one waits (<see cref="Thread.Yield"/>).</summary>
    public static readonly Action ToWaitingThreads = static () => Thread.Yield();
}
