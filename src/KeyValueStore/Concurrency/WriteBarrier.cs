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
/// Back-pressure: as the log nears its bound, compaction closes the barrier for a few milliseconds at a time, without
/// waiting for the writes inside; while the log is over its bound, it holds writers out until it is back under
/// (<see cref="KeyValueStore.Compaction.CompactionPass"/>). A checkpoint may close the barrier meanwhile: closes nest,
/// and the barrier opens when the last closer opens it.
/// </para>
/// <para>
/// The fast path is two interlocked operations per write, on the writer's processor's cell of a
/// <see cref="PerProcessorCount"/> (one counter shared by every processor was a cache miss per write on the others, issue
/// 19). A writer counts itself in and then checks the flag; the closer sets the flag and then sums the count; both are
/// full fences, so at least one of them sees the other. A scoped writer counts out on the cell it counted in on; writers
/// that cannot carry a cell (<see cref="EnterWriteAsync"/>) and the waiters <see cref="Open"/> admits use
/// <see cref="PerProcessorCount.SharedCell"/> both ways.
/// </para>
/// <para>
/// Fairness: <see cref="Open"/> counts every waiting writer in before it returns, so the next close waits for them.
/// Without that, back-to-back checkpoints (then Commit mode's checkpoint per commit round; still possible with a caller
/// checkpointing in a loop) closed the barrier again before the woken writers got in, and writers starved.
/// </para>
/// <para>
/// A failed disk: writers waiting for the barrier to open stop with the store's fault as soon as it faults
/// (<c>abandonWaitsOn</c>), whether or not the closer ever opens it. Every closer opens in a <c>finally</c>, but one
/// stuck on the dead disk in something that never returns would otherwise hold every writer for good (the failing-disk
/// crash soak found one).
/// </para>
/// </remarks>
internal sealed class WriteBarrier
{
    private readonly object _slowPath = new();
    private TaskCompletionSource _reopened = NewSignal();
    private TaskCompletionSource _drained = NewSignal();
    private readonly PerProcessorCount _writesInFlight = new();
    private int _closed;
    private int _closers;
    private int _waiting;
    private long _closedSince;
    private long _closedTicks;
    private long _longestClosedTicks;
    private readonly CancellationToken _abandonWaitsOn;
    private readonly Func<Exception>? _abandonedBecause;

    /// <summary>A barrier whose waiting writers wait until it opens, or until their own cancellation.</summary>
    public WriteBarrier()
    {
    }

    /// <param name="abandonWaitsOn">Once cancelled (the store faulted), writers waiting for the barrier to open stop waiting.</param>
    /// <param name="abandonedBecause">The exception each of them then gets (the store's fault).</param>
    public WriteBarrier(CancellationToken abandonWaitsOn, Func<Exception> abandonedBecause)
    {
        _abandonWaitsOn = abandonWaitsOn;
        _abandonedBecause = abandonedBecause;
    }

    /// <summary>Gets whether the barrier holds new writers out now.</summary>
    public bool IsClosed => Volatile.Read(ref _closed) != 0;

    /// <summary>Gets the total time the barrier has held writers out, by any closer.</summary>
    public TimeSpan TimeClosed => TimeSpan.FromTicks(Interlocked.Read(ref _closedTicks));

    /// <summary>Gets the longest single stretch the barrier held writers out: the longest pause a writer could have met.</summary>
    public TimeSpan LongestClosed => TimeSpan.FromTicks(Interlocked.Read(ref _longestClosedTicks));

    /// <summary>Waits until no checkpoint or compaction holds the barrier closed, and counts a write in. Pair with <see cref="ExitWrite"/>.</summary>
    /// <param name="cancellationToken">Stops the wait; the write is then not counted in and must not call <see cref="ExitWrite"/>.</param>
    /// <remarks>Counts on the shared cell: for a writer whose exit cannot carry the cell it entered on. <see cref="EnterScopeAsync"/> is the hot path's.</remarks>
    public ValueTask EnterWriteAsync(CancellationToken cancellationToken = default)
    {
        _writesInFlight.Add(PerProcessorCount.SharedCell, 1);
        if (Volatile.Read(ref _closed) == 0)
        {
            return ValueTask.CompletedTask;
        }

        ExitWrite();
        return EnterWhileClosed(cancellationToken);
    }

    /// <summary>
    /// The barrier was closed when the writer counted itself in (and out again): counts it in on the shared cell if it has
    /// opened meanwhile, or waits for <see cref="Open"/>, which counts it in there.
    /// </summary>
    private ValueTask EnterWhileClosed(CancellationToken cancellationToken)
    {
        lock (_slowPath)
        {
            if (_closed == 0)
            {
                _writesInFlight.Add(PerProcessorCount.SharedCell, 1);
                return ValueTask.CompletedTask;
            }

            // Open counts this writer in for it.
            _waiting++;
            return cancellationToken.CanBeCanceled || _abandonWaitsOn.CanBeCanceled ? WaitForOpenAsync(_reopened.Task, cancellationToken) : new ValueTask(_reopened.Task);
        }
    }

    /// <summary>
    /// Waits for <see cref="Open"/> unless cancelled or abandoned first. <see cref="Open"/> counts every waiter in, a
    /// cancelled one too, so a cancelled waiter counts itself out once it is admitted; otherwise the next close would wait
    /// for it forever.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask WaitForOpenAsync(Task reopened, CancellationToken cancellationToken)
    {
        try
        {
            Task waiting = cancellationToken.CanBeCanceled ? reopened.WaitAsync(cancellationToken) : reopened;
            await (_abandonWaitsOn.CanBeCanceled ? waiting.WaitAsync(_abandonWaitsOn) : waiting).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            _ = reopened.ContinueWith(static (_, barrier) => ((WriteBarrier)barrier!).ExitWrite(), this, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            if (!cancellationToken.IsCancellationRequested && _abandonWaitsOn.IsCancellationRequested)
            {
                throw _abandonedBecause!();
            }

            throw;
        }
    }

    /// <summary>Counts out a writer that <see cref="EnterWriteAsync"/> counted in.</summary>
    public void ExitWrite() => ExitWriteAt(PerProcessorCount.SharedCell);

    private void ExitWriteAt(int cell)
    {
        _writesInFlight.Decrement(cell);
        if (Volatile.Read(ref _closed) != 0 && _writesInFlight.Sum() == 0)
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
            if (_writesInFlight.Sum() == 0)
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
            _writesInFlight.Add(PerProcessorCount.SharedCell, _waiting);
            _waiting = 0;
            admitted = _reopened;
            _reopened = NewSignal();
            Interlocked.Exchange(ref _closed, 0);
        }

        admitted.TrySetResult();
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Enters as a writer for a <c>using</c> scope, whose disposal exits, counted on the caller's processor's cell.</summary>
    /// <exception cref="System.OperationCanceledException">Cancelled while the barrier was closed; nothing was entered.</exception>
    /// <remarks>Not an async method: the open barrier, every write's case, completes without a state machine.</remarks>
    public ValueTask<Scope> EnterScopeAsync(CancellationToken cancellationToken = default)
    {
        if (TryEnterScope(out Scope scope))
        {
            return new ValueTask<Scope>(scope);
        }

        ValueTask entered = EnterWhileClosed(cancellationToken);
        return entered.IsCompletedSuccessfully ? new ValueTask<Scope>(new Scope(this, PerProcessorCount.SharedCell)) : ScopeOnceEnteredAsync(entered);
    }

    /// <summary>
    /// Enters as a writer when the barrier is open, as <see cref="EnterScopeAsync"/> would at once; when it is closed,
    /// returns false having entered nothing and left no waiter behind.
    /// </summary>
    public bool TryEnterScope(out Scope scope)
    {
        int cell = _writesInFlight.Increment();
        if (Volatile.Read(ref _closed) == 0)
        {
            scope = new Scope(this, cell);
            return true;
        }

        ExitWriteAt(cell);
        scope = default;
        return false;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<Scope> ScopeOnceEnteredAsync(ValueTask entered)
    {
        await entered.ConfigureAwait(false);
        return new Scope(this, PerProcessorCount.SharedCell);
    }

    /// <summary>A writer's pass through the barrier, and the cell it was counted in on; disposing it counts it out there.</summary>
    public readonly struct Scope(WriteBarrier barrier, int cell) : System.IDisposable
    {
        public void Dispose() => barrier?.ExitWriteAt(cell);
    }
}
