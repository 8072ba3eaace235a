using System.Threading;

namespace KeyValueStore.Compaction;

/// <summary>
/// The most bytes the log may hold (<see cref="MixedStorageKVStoreOptions.LogDiskBudgetBytes"/>), and whether compaction
/// can still make room under it. When it cannot, writes that add data are refused
/// (<see cref="LogDiskBudgetExceededException"/>) rather than kept waiting, until a delete may have made room.
/// </summary>
/// <remarks>
/// Compaction cannot make room when a pass over the whole read-only region left the log, as it was when the pass
/// began, at or over the budget (<see cref="IsExhausted"/>: the live data fills it), or when the writers that asked for room saw
/// <see cref="MaxStepsWithoutPass"/> compaction steps in a row run no pass (they failed, or found nothing to do). Not
/// the log's size at the end of a step: writers waiting for room fill what a pass gives back at once, and judging by
/// that refused writes to a store whose live data took half its budget (load test). A delete that removed a record
/// ends both, and the next write that finds the log full asks compaction once more. Thread-safe.
/// </remarks>
internal sealed class LogDiskBudget
{
    /// <summary>How many steps in a row that a write asked room of may run no pass before writes are refused.</summary>
    public const int MaxStepsWithoutPass = 3;

    private int _exhausted;
    private int _stepsWithoutPass;

    /// <param name="bytes">The budget in bytes; 0 for none.</param>
    public LogDiskBudget(long bytes)
    {
        Bytes = bytes > 0 ? bytes : long.MaxValue;
    }

    /// <summary>Gets a budget that never refuses: no budget.</summary>
    public static LogDiskBudget None => new(0);

    /// <summary>Gets whether a budget is set.</summary>
    public bool IsSet => Bytes != long.MaxValue;

    /// <summary>Gets the budget in bytes, <see cref="long.MaxValue"/> when there is none.</summary>
    public long Bytes { get; }

    /// <summary>Gets whether the last pass left the log it started from at or over the budget, and nothing was deleted since.</summary>
    public bool IsExhausted => Volatile.Read(ref _exhausted) != 0;

    /// <summary>Gets whether compaction cannot make room: <see cref="IsExhausted"/>, or steps asked for room ran no pass.</summary>
    public bool CannotMakeRoom => IsExhausted || Volatile.Read(ref _stepsWithoutPass) >= MaxStepsWithoutPass;

    /// <summary>Returns true when a log of <paramref name="logBytes"/> may grow: it is under the budget.</summary>
    public bool HasRoom(long logBytes) => logBytes < Bytes;

    /// <summary>Records what a pass left of the log it started from: its copies and the part it did not reach.</summary>
    /// <param name="logBytesLeft">The pass's copies and the part of the log it did not reach.</param>
    /// <param name="wholeReadOnlyRegion">
    /// Whether the pass covered all it could. Only such a pass shows that the live data fills the budget: the part a
    /// shorter pass did not reach may hold garbage that the next pass of the step gives back.
    /// </param>
    public void RecordPassLeft(long logBytesLeft, bool wholeReadOnlyRegion)
    {
        Volatile.Write(ref _stepsWithoutPass, 0);
        if (HasRoom(logBytesLeft))
        {
            Volatile.Write(ref _exhausted, 0);
        }
        else if (wholeReadOnlyRegion)
        {
            Volatile.Write(ref _exhausted, 1);
        }
    }

    /// <summary>Records a step that a write asked room of and that ran no pass.</summary>
    public void RecordStepWithoutPass() => Interlocked.Increment(ref _stepsWithoutPass);

    /// <summary>Notes that a delete removed a record: the next compaction may give room back.</summary>
    public void NoteRecordDeleted()
    {
        if (Volatile.Read(ref _exhausted) != 0 || Volatile.Read(ref _stepsWithoutPass) != 0)
        {
            Volatile.Write(ref _exhausted, 0);
            Volatile.Write(ref _stepsWithoutPass, 0);
        }
    }
}
