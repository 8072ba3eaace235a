using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Concurrency;

/// <summary>
/// Lets writes run concurrently with each other but not while a checkpoint starts or compaction applies back-pressure:
/// <see cref="CloseAsync"/> waits for the writes in flight and holds new ones back until every closer has called
/// <see cref="Open"/>.
/// </summary>
/// <remarks>
/// Checkpoints: a write that ran before a fold-over checkpoint has fixed its tail could land below that tail in the next
/// version, and recovery would rewrite its page in place, under sector checksums the checkpoint already recorded
/// (<see cref="KeyValueStore.Durability.Checkpointer"/>); the checkpoint opens the barrier once the tail is fixed, not
/// when its pages are on disk. Reads are not held back.
/// <para>
/// Back-pressure: while the log is over its bound, compaction holds writers out until it is back under
/// (<see cref="KeyValueStore.Compaction.CompactionPass"/>). A checkpoint may close the barrier meanwhile: closes nest,
/// and the barrier opens when the last closer opens it.
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
    private int _closers;
    private int _waiting;
    private long _closedSince;
    private long _closedTicks;
    private long _longestClosedTicks;

    /// <summary>Gets whether the barrier holds new writers out now.</summary>
    public bool IsClosed => Volatile.Read(ref _closed) != 0;

    /// <summary>Gets the total time the barrier has held writers out, by any closer.</summary>
    public TimeSpan TimeClosed => TimeSpan.FromTicks(Interlocked.Read(ref _closedTicks));

    /// <summary>Gets the longest single stretch the barrier held writers out: the longest pause a writer could have met.</summary>
    public TimeSpan LongestClosed => TimeSpan.FromTicks(Interlocked.Read(ref _longestClosedTicks));

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
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
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
    /// Holds new writes back and completes when the writes in flight have finished. Closes nest: a second closer waits
    /// for the same writes, and the barrier stays closed until both have opened it.
    /// </summary>
    public Task CloseAsync()
    {
        lock (_slowPath)
        {
            if (_closers++ > 0)
            {
                return _drained.Task;
            }

            _closedSince = Stopwatch.GetTimestamp();
            Volatile.Write(ref _drained, NewSignal());
            Interlocked.Exchange(ref _closed, 1);
            if (Volatile.Read(ref _writesInFlight) == 0)
            {
                _drained.TrySetResult();
            }

            return _drained.Task;
        }
    }

    /// <summary>Lets writes in again, the waiting ones first, once every closer has opened.</summary>
    public void Open()
    {
        TaskCompletionSource admitted;
        lock (_slowPath)
        {
            if (_closers == 0)
            {
                throw new InvalidOperationException("The write barrier was opened more times than it was closed.");
            }

            if (--_closers > 0)
            {
                return;
            }

            long closedTicks = Stopwatch.GetElapsedTime(_closedSince).Ticks;
            Interlocked.Add(ref _closedTicks, closedTicks);
            Interlocked.Exchange(ref _longestClosedTicks, Math.Max(closedTicks, _longestClosedTicks));
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
    /// <remarks>Not an async method: the open barrier, every write's case, completes without a state machine.</remarks>
    public ValueTask<Scope> EnterScopeAsync(CancellationToken cancellationToken = default)
    {
        ValueTask entered = EnterWriteAsync(cancellationToken);
        return entered.IsCompletedSuccessfully ? new ValueTask<Scope>(new Scope(this)) : ScopeOnceEnteredAsync(entered);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<Scope> ScopeOnceEnteredAsync(ValueTask entered)
    {
        await entered.ConfigureAwait(false);
        return new Scope(this);
    }

    /// <summary>A writer's pass through the barrier; disposing it exits (<see cref="ExitWrite"/>).</summary>
    public readonly struct Scope(WriteBarrier barrier) : System.IDisposable
    {
        public void Dispose() => barrier?.ExitWrite();
    }
}
