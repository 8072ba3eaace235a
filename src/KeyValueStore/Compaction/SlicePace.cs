using System;
using System.Threading;

namespace KeyValueStore.Compaction;

/// <summary>
/// How a slice's copies share the machine with the foreground: how many records they copy at once, and whether they
/// give way to waiting foreground work between records. A slice with time to spare copies with few workers that give
/// way until its pass hurries it (<see cref="Hurry"/>), which the pass does as soon as the log grows to where compaction
/// must not wait: the writers' back-pressure bound comes next. A hurried slice copies with all
/// <see cref="CompactionPass.MaxCopyWorkers"/> and gives way no more.
/// </summary>
/// <remarks>
/// Why a slice can be hurried while it copies, not only at its start: giving way costs a slice nothing while the
/// foreground is idle, but beside unpaced writers every give-way waits for a turn on a busy core and the thread pool.
/// The first slice of a store's first pass under unpaced overwrites then took 1.7 s for 3 MB of log, while the writers
/// took the log from twice the live data to 3.8 times, and the half-second hold of the writers that followed was the
/// run's longest (docs/benchmarks.md, "A slice hurried while it copies"). Its copy workers grow to all of them from the
/// next batch of records the slice scans: a few workers beside eight unpaced writers get a few of the cores' time slices.
/// </remarks>
internal sealed class SlicePace
{
    private readonly int _workersWithTimeToSpare;
    private int _hurried;

    private SlicePace(int workersWithTimeToSpare, bool hurried)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workersWithTimeToSpare, 1);
        _workersWithTimeToSpare = Math.Min(workersWithTimeToSpare, CompactionPass.MaxCopyWorkers);
        _hurried = hurried ? 1 : 0;
    }

    /// <summary>Gets how many records the slice may copy at once beside the writers now: few while it gives way, all once hurried.</summary>
    public int CopyWorkers => GivesWay ? _workersWithTimeToSpare : CompactionPass.MaxCopyWorkers;

    /// <summary>Gets whether the copies give way between records now: the slice had time to spare, and its pass has not hurried it.</summary>
    public bool GivesWay => Volatile.Read(ref _hurried) == 0;

    /// <summary>A slice with time to spare: <paramref name="copyWorkers"/> copy at once and give way between records until the pass hurries it.</summary>
    public static SlicePace WithTimeToSpare(int copyWorkers) => new(copyWorkers, hurried: false);

    /// <summary>A slice that copies at full speed from its start: with all the workers, never giving way.</summary>
    public static SlicePace Hurried() => new(CompactionPass.MaxCopyWorkers, hurried: true);

    /// <summary>Stops the copies giving way from their next record on, and lets all the workers copy from the next batch. Idempotent; safe from any thread.</summary>
    public void Hurry() => Volatile.Write(ref _hurried, 1);
}
