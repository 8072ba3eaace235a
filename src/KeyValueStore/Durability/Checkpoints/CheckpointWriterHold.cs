using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Durability;

/// <summary>
/// Writers held out of a <see cref="WriteBarrier"/> while a checkpoint starts, let go once, by whichever comes first:
/// FASTER fixing the checkpoint's tail (<see cref="CheckpointTailWatch"/>, on whatever thread makes that step) or the
/// checkpoint ending without it (a failure). Times the hold for the checkpoint's event.
/// </summary>
/// <remarks>
/// The release is a callback from inside FASTER's step, not a continuation of the checkpoint's own call: that call goes
/// on from the fixed tail to the sector checksums' sync and the metadata's write before it returns whenever the log is
/// already flushed that far (up to 5.7 ms measured), and writers waited for it (docs/benchmarks.md, "Writers let go at the
/// fixed tail"). Releasing only opens the barrier, whose waiting writers resume on the thread pool, never on the
/// releasing thread.
/// </remarks>
internal sealed class CheckpointWriterHold
{
    private readonly WriteBarrier _writes;
    private readonly TimeProvider _timeProvider;
    private readonly long _since;
    private int _released;
    private long _heldTicks;

    private CheckpointWriterHold(WriteBarrier writes, TimeProvider timeProvider, long since)
    {
        _writes = writes;
        _timeProvider = timeProvider;
        _since = since;
    }

    /// <summary>Gets how long writers were held, once released; zero before.</summary>
    public TimeSpan HeldFor => TimeSpan.FromTicks(Interlocked.Read(ref _heldTicks));

    /// <summary>Closes <paramref name="writes"/> and completes once the writes in flight have finished.</summary>
    public static async Task<CheckpointWriterHold> BeginAsync(WriteBarrier writes, TimeProvider timeProvider)
    {
        long since = timeProvider.GetTimestamp();
        await writes.CloseAsync().ConfigureAwait(false);
        return new CheckpointWriterHold(writes, timeProvider, since);
    }

    /// <summary>Opens the barrier the first time it is called; later calls do nothing.</summary>
    public void Release()
    {
        if (Interlocked.Exchange(ref _released, 1) != 0)
        {
            return;
        }

        Interlocked.Exchange(ref _heldTicks, _timeProvider.GetElapsedTime(_since).Ticks);
        _writes.Open();
    }
}
