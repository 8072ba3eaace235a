using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Concurrency;

/// <summary>
/// Counts the writes in flight in two generations, so that a checkpoint can wait for every write that began before it
/// (<see cref="WaitForEarlierAsync"/>) while writes that begin after it go on. Unlike <see cref="WriteBarrier"/>, it
/// never holds a writer back.
/// </summary>
/// <remarks>
/// A Commit-mode write enters before it appends to the write-ahead log and exits once it has been applied, so a
/// checkpoint that read the log's replay start and then waited here knows every entry before that tail is in the store: each
/// such entry was appended after its writer entered, and so before the wait began.
/// <para>
/// A writer counts itself into the current generation, then checks that the generation is still current, and counts
/// itself out and tries again if it is not. So once a writer has entered, its generation was current at a moment after
/// it counted itself in: a waiter that switched the generation before that moment sees the writer as later, and one
/// that switched it after waits for it. One waiter at a time (checkpoints are taken one at a time).
/// </para>
/// </remarks>
internal sealed class WriteGenerations
{
    private readonly long[] _inFlight = new long[2];
    private int _current;
    private TaskCompletionSource? _exited;

    /// <summary>Counts a write in; pass the generation returned to <see cref="Exit"/> once it has been applied or has failed.</summary>
    public int Enter()
    {
        while (true)
        {
            int generation = Volatile.Read(ref _current);
            Interlocked.Increment(ref _inFlight[generation]);
            if (Volatile.Read(ref _current) == generation)
            {
                return generation;
            }

            Exit(generation);
        }
    }

    /// <summary>Counts out a write that <see cref="Enter"/> counted into <paramref name="generation"/>.</summary>
    public void Exit(int generation)
    {
        if (Interlocked.Decrement(ref _inFlight[generation]) == 0)
        {
            Volatile.Read(ref _exited)?.TrySetResult();
        }
    }

    /// <summary>
    /// Starts a new generation and completes once every write of the previous one has exited. Writes that enter
    /// meanwhile are not waited for. Call once at a time.
    /// </summary>
    public async Task WaitForEarlierAsync()
    {
        int earlier = Volatile.Read(ref _current);
        Interlocked.Exchange(ref _current, 1 - earlier);
        try
        {
            while (true)
            {
                // Published before the count is read: a count that reaches zero after the read finds the signal.
                // A signal from the other generation, or from a count that went back up, only wakes this loop to look again.
                var exited = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                Interlocked.Exchange(ref _exited, exited);
                if (Interlocked.Read(ref _inFlight[earlier]) == 0)
                {
                    return;
                }

                await exited.Task.ConfigureAwait(false);
            }
        }
        finally
        {
            Volatile.Write(ref _exited, null);
        }
    }
}
