using System;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Storage;

/// <summary>
/// Runs the commits FASTER hands its checkpoint manager (a checkpoint's sector checksums synced, then its metadata
/// written) on a thread of their own, one after another, and lets the checkpointer wait for them.
/// </summary>
/// <remarks>
/// FASTER calls the manager's commit from inside a step of its checkpoint state machine, inside its epoch, on whichever
/// thread drives that step: the checkpointer's, or a writer's whose operation refreshed the epoch. A commit there is
/// milliseconds of synced I/O, and while it runs the epoch cannot move on, so FASTER cannot close the log page that a
/// page turn needs: every writer reaching the end of a page waited for the commit (up to 9.6 ms measured, seven writers
/// at once, docs/benchmarks.md "Checkpoint commits off FASTER's epoch"), and the writer driving the step waited for all
/// of it. Off the epoch a commit holds nobody. FASTER then reports the checkpoint complete before its metadata is
/// written, so the checkpointer waits for <see cref="WhenCompleteAsync"/> before it reads that metadata, records the
/// checkpoint, deletes what it replaces or drops write-ahead log entries; until it is written the previous checkpoint
/// stays the one recovery finds, and nothing it needs is deleted before the record names its replacement
/// (<see cref="CheckpointDeviceFactory"/>).
/// </remarks>
internal sealed class CheckpointCommits
{
    private readonly object _gate = new();
    private Task _latest = Task.CompletedTask;

    /// <summary>Starts <paramref name="commit"/> on a thread of its own once the commits started before it have finished; returns at once.</summary>
    /// <remarks>
    /// A thread of its own, not the thread pool: a checkpoint waits for its commit, and on a busy machine a pool work
    /// item can wait for a thread for hundreds of milliseconds (600 ms measured with sixteen writers on two cores),
    /// while a Commit-mode write-ahead log grew past the size that had asked for the checkpoint. Commits are one per
    /// checkpoint, so a thread each costs nothing that shows.
    /// </remarks>
    public void Start(Action commit)
    {
        lock (_gate)
        {
            Task previous = _latest;
            _latest = Task.Factory.StartNew(
                () =>
                {
                    WaitQuietly(previous);
                    commit();
                },
                CancellationToken.None,
                TaskCreationOptions.LongRunning,
                TaskScheduler.Default);
        }
    }

    /// <summary>The latest commit started, complete once it and every one before it have finished; faulted when it failed.</summary>
    public Task WhenCompleteAsync()
    {
        lock (_gate)
        {
            return _latest;
        }
    }

    /// <summary>Waits for <paramref name="previous"/> to finish, whatever its outcome: its own waiter was told how it ended.</summary>
    private static void WaitQuietly(Task previous)
    {
        try
        {
            previous.Wait();
        }
        catch (AggregateException)
        {
            // Reported to whoever waited for that commit; the next commit is a checkpoint of its own.
        }
    }
}
