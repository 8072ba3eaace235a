using System;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Concurrency;

/// <summary>
/// Lets writes run concurrently with each other but never with a checkpoint or a compaction: <see cref="CloseAsync"/>
/// waits for the writes in flight and holds new ones back until <see cref="Open"/>.
/// </summary>
/// <remarks>
/// Compaction: FASTER 2.6.5's compaction reads a key's hash entry before it takes the bucket latch and links its copy
/// after, so a write to that key in between makes the copy's link fail. FASTER then leaves the unlinked record in the
/// log with its key length overwritten (see <see cref="KeyValueStore.Concurrency.KeyStripeLocks"/>), and every later log
/// scan misjudges its size and skips the records after it: compaction dropped them and recovery forgot them.
/// <para>
/// Checkpoints: it was added while the crash harness was finding torn values in Commit mode, whose cause turned out to
/// be compaction (docs/durability.md). It stays because every passing crash run so far ran with it; whether FASTER's
/// version shift makes it unnecessary needs a soak of its own. Reads are not held back.
/// </para>
/// <para>
/// The fast path is two interlocked operations per write. A writer counts itself in and then checks the flag; the
/// closer sets the flag and then checks the count; both are full fences, so at least one of them sees the other.
/// </para>
/// <para>
/// Fairness: <see cref="Open"/> counts every waiting writer in before it returns, so the next close waits for them.
/// Without that, back-to-back checkpoints (then Commit mode's checkpoint per commit round; still possible with a caller
/// checkpointing in a loop) closed the barrier again before the woken writers got in, and writers starved.
/// </para>
/// </remarks>
internal sealed class WriteBarrier
{
    private readonly object _slowPath = new();
    private TaskCompletionSource _reopened = NewSignal();
    private TaskCompletionSource _drained = NewSignal();
    private int _writesInFlight;
    private int _closed;
    private int _waiting;

    /// <summary>Waits until no checkpoint or compaction holds the barrier closed, and counts a write in. Pair with <see cref="ExitWrite"/>.</summary>
    /// <param name="cancellationToken">Stops the wait; the write is then not counted in and must not call <see cref="ExitWrite"/>.</param>
    public ValueTask EnterWriteAsync(CancellationToken cancellationToken = default)
    {
        Interlocked.Increment(ref _writesInFlight);
        if (Volatile.Read(ref _closed) == 0)
        {
            return ValueTask.CompletedTask;
        }

        ExitWrite();
        lock (_slowPath)
        {
            if (_closed == 0)
            {
                Interlocked.Increment(ref _writesInFlight);
                return ValueTask.CompletedTask;
            }

            // Open counts this writer in for it.
            _waiting++;
            return cancellationToken.CanBeCanceled ? WaitForOpenAsync(_reopened.Task, cancellationToken) : new ValueTask(_reopened.Task);
        }
    }

    /// <summary>
    /// Waits for <see cref="Open"/> unless cancelled first. <see cref="Open"/> counts every waiter in, a cancelled one too,
    /// so a cancelled waiter counts itself out once it is admitted; otherwise the next close would wait for it forever.
    /// </summary>
    private async ValueTask WaitForOpenAsync(Task reopened, CancellationToken cancellationToken)
    {
        try
        {
            await reopened.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            _ = reopened.ContinueWith(static (_, barrier) => ((WriteBarrier)barrier!).ExitWrite(), this, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            throw;
        }
    }

    public void ExitWrite()
    {
        if (Interlocked.Decrement(ref _writesInFlight) == 0 && Volatile.Read(ref _closed) != 0)
        {
            Volatile.Read(ref _drained).TrySetResult();
        }
    }

    /// <summary>
    /// Holds new writes back and completes when the writes in flight have finished. One caller at a time: checkpoints
    /// and compactions take turns under the checkpointer's lock, and a scratch store has only the compactor.
    /// </summary>
    public Task CloseAsync()
    {
        lock (_slowPath)
        {
            Volatile.Write(ref _drained, NewSignal());
            Interlocked.Exchange(ref _closed, 1);
            if (Volatile.Read(ref _writesInFlight) == 0)
            {
                _drained.TrySetResult();
            }

            return _drained.Task;
        }
    }

    /// <summary>Lets writes in again, the waiting ones first.</summary>
    public void Open()
    {
        TaskCompletionSource admitted;
        lock (_slowPath)
        {
            Interlocked.Add(ref _writesInFlight, _waiting);
            _waiting = 0;
            admitted = _reopened;
            _reopened = NewSignal();
            Interlocked.Exchange(ref _closed, 0);
        }

        admitted.TrySetResult();
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Enters as a writer (<see cref="EnterWriteAsync"/>) for a <c>using</c> scope, whose disposal exits.</summary>
    /// <exception cref="System.OperationCanceledException">Cancelled while the barrier was closed; nothing was entered.</exception>
    public async ValueTask<Scope> EnterScopeAsync(CancellationToken cancellationToken = default)
    {
        await EnterWriteAsync(cancellationToken).ConfigureAwait(false);
        return new Scope(this);
    }

    /// <summary>A writer's pass through the barrier; disposing it exits (<see cref="ExitWrite"/>).</summary>
    public readonly struct Scope(WriteBarrier barrier) : System.IDisposable
    {
        public void Dispose() => barrier?.ExitWrite();
    }
}
