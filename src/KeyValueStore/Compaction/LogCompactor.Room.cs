using System;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Compaction;

/// <summary>
/// Back-pressure under a <see cref="LogDiskBudget"/>: a write that finds the log at its budget asks the schedule for a
/// step and waits for room, or is refused when compaction cannot make any.
/// </summary>
internal sealed partial class LogCompactor
{
    /// <summary>Gets whether a write that adds data may go ahead now without waiting: the log is under its budget, or there is none.</summary>
    public bool HasRoom => !_budget.IsSet || _budget.HasRoom(LogBytes);

    /// <summary>Notes that a delete removed a record, so that a log whose live data filled its budget may have room again.</summary>
    public void NoteRecordDeleted() => _budget.NoteRecordDeleted();

    /// <summary>
    /// Waits until the log is under its budget, asking compaction for room: call when <see cref="HasRoom"/> is false,
    /// before the write enters the write barrier (back-pressure closes the barrier and waits for the writers inside).
    /// The log is looked at again every <see cref="CompactionPass.BackPressureWatchInterval"/>, since each slice of a
    /// pass makes room. Writers that pass together may take the log past the budget by the writes they make.
    /// </summary>
    /// <exception cref="LogDiskBudgetExceededException">
    /// Compaction cannot make room (<see cref="LogDiskBudget.CannotMakeRoom"/>). Nothing was written; deletes make room.
    /// </exception>
    /// <exception cref="ObjectDisposedException">The store closed while the write waited.</exception>
    public async ValueTask WaitForRoomAsync(CancellationToken cancellationToken)
    {
        long started = _timeProvider.GetTimestamp();
        try
        {
            await WaitUntilRoomAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            Statistics.RecordWaitForRoom(_timeProvider.GetElapsedTime(started));
        }
    }

    private async Task WaitUntilRoomAsync(CancellationToken cancellationToken)
    {
        Task stepEnded = AskForRoom();
        while (!HasRoom)
        {
            if (_budget.CannotMakeRoom || _timer is null)
            {
                throw new LogDiskBudgetExceededException(LogBytes, _budget.Bytes, _policy.LiveBytesEstimate, ShortfallNow());
            }

            if (Volatile.Read(ref _disposed) != 0)
            {
                throw new ObjectDisposedException(nameof(LogCompactor), "The store was disposed while a write waited for room in the log; create a new store to continue.");
            }

            _fault.ThrowIfFaulted();
            if (stepEnded.IsCompleted)
            {
                stepEnded = AskForRoom();
            }

            await Task.WhenAny(stepEnded, Task.Delay(CompactionPass.BackPressureWatchInterval, _timeProvider, cancellationToken)).ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
        }
    }

    private LogDiskBudgetExceededException.Shortfall ShortfallNow() =>
        _budget.IsExhausted ? LogDiskBudgetExceededException.Shortfall.LiveDataFillsTheBudget
        : _timer is null ? LogDiskBudgetExceededException.Shortfall.CompactionNotScheduled
        : LogDiskBudgetExceededException.Shortfall.CompactionGaveNoRoom;

    /// <summary>Asks the schedule for a step that makes room; returns the signal of the end of the step under way or next.</summary>
    private Task AskForRoom()
    {
        Task stepEnded = Volatile.Read(ref _stepEnded).Task;
        Volatile.Write(ref _roomWanted, 1);
        Wake();
        return stepEnded;
    }
}
