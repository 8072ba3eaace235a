using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// <see cref="DurabilityMode.Commit"/>: each write is appended to the <see cref="WriteAheadLog"/>, committed, and only
/// then applied, in its stripe's log order (<see cref="ApplyTurns"/>). No reader ever sees a write that is not durable,
/// and a write whose commit failed is never applied. Checkpoints bound the log: each records how much of it it holds,
/// and the log drops that part.
/// </summary>
/// <remarks>
/// A write holds its key's stripe only while it appends and takes its ticket, not through the commit: writes of one hot
/// key then share group commits. Cancellation applies until the entry is appended; from then on the write runs to its
/// end, because recovery would replay it anyway.
/// <para>
/// Checkpoints never wait for a group commit with writers held. A write counts itself in <see cref="LoggedWrites"/>
/// before it appends and out once applied, so a checkpoint that took its replay start (the log's tail, <see cref="WriteAheadLog.ReplayStart"/>) can wait for the writes before it
/// while later ones append, commit and apply. Those later writes may land in the checkpoint as well; replay from the
/// tail it recorded writes them again in the log's order, which each key's stripe also applied them in, and ends where
/// they ended. Writers are held only around the apply (<see cref="Applies"/>), while FASTER fixes the checkpoint's tail
/// (<see cref="Checkpointer"/> says why), and applies take microseconds where a commit takes a flush of the log.
/// </para>
/// </remarks>
internal sealed class WriteAheadJournal : IWriteJournal
{
    private readonly ApplyTurns _turns;
    private readonly StoreFault _fault;
    private readonly TimeSpan _interval;
    private readonly WalPosition _replayFrom;
    private readonly TimeProvider _timeProvider;

    /// <param name="log">The store's write-ahead log, opened and checked.</param>
    /// <param name="replayFrom">Where recovery replays <paramref name="log"/> from: the position the recovered checkpoint holds.</param>
    /// <param name="checkpointer">Takes the store's checkpoints, recording log positions.</param>
    /// <param name="interval">The time between periodic checkpoints.</param>
    /// <param name="stripeCount">The number of the engine's key stripes.</param>
    /// <param name="fault">The store's fault: once set, nothing more is appended.</param>
    /// <param name="timeProvider">Times the replay.</param>
    /// <param name="loggedWrites">Counts the writes from their append to their apply; <paramref name="checkpointer"/> waits for the earlier ones.</param>
    /// <param name="applies">Holds applies back while <paramref name="checkpointer"/> starts a checkpoint.</param>
    public WriteAheadJournal(WriteAheadLog log, WalPosition replayFrom, Checkpointer checkpointer, TimeSpan interval, int stripeCount, StoreFault fault, TimeProvider timeProvider, WriteGenerations loggedWrites, WriteBarrier applies)
    {
        Log = log;
        LoggedWrites = loggedWrites;
        Applies = applies;
        Checkpointer = checkpointer;
        _replayFrom = replayFrom;
        _interval = interval;
        _turns = new ApplyTurns(stripeCount);
        _fault = fault;
        _timeProvider = timeProvider;
    }

    /// <summary>Gets the write-ahead log.</summary>
    public WriteAheadLog Log { get; }

    /// <summary>Gets the checkpointer.</summary>
    public Checkpointer Checkpointer { get; }

    /// <summary>Gets the writes in flight from their append to their apply, by generation.</summary>
    public WriteGenerations LoggedWrites { get; }

    /// <summary>Gets the barrier every write passes just before it is applied: closed only while a checkpoint starts.</summary>
    public WriteBarrier Applies { get; }

    /// <inheritdoc/>
    public long? DurableFlushes => Checkpointer.CheckpointCount + Log.CommitCount;

    /// <inheritdoc/>
    public BackgroundWork? Checkpoints => Checkpointer.Checkpoints;

    /// <inheritdoc/>
    public Task RecoverAsync(Func<IReadOnlyList<BatchWrite>, ValueTask> apply) => Log.ReplayIntoStoreAsync(_replayFrom, apply, _timeProvider);

    /// <inheritdoc/>
    public void Start()
    {
        Log.StartGroupCommit();
        Checkpointer.Start(_interval);
    }

    /// <inheritdoc/>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<WriteTurn> BeginWriteAsync(KeyStripeLocks.Scope held, int stripe, ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, bool isDelete, CancellationToken cancellationToken)
    {
        int generation = LoggedWrites.Enter();
        bool admitted = false;
        try
        {
            long address;
            long ticket;
            try
            {
                _fault.ThrowIfFaulted();
                address = await Log.AppendAsync(key, value, isDelete).ConfigureAwait(false);
                ticket = _turns.TakeTicket(stripe);
            }
            finally
            {
                held.Dispose();
            }

            ExceptionDispatchInfo? commitFailure = await CommitOrCaptureAsync(address).ConfigureAwait(false);
            await _turns.WaitForTurnAsync(stripe, ticket).ConfigureAwait(false);
            if (commitFailure is not null)
            {
                _turns.EndTurn(stripe, ticket);
                commitFailure.Throw();
            }

            await Applies.EnterWriteAsync().ConfigureAwait(false);
            admitted = true;
            return WriteTurn.InTurn(stripe, ticket, generation);
        }
        finally
        {
            if (!admitted)
            {
                LoggedWrites.Exit(generation);
            }
        }
    }

    /// <inheritdoc/>
    /// <remarks>The batch is one transaction of the log, replayed whole or not at all.</remarks>
    public async ValueTask<WriteTurn> BeginBatchAsync(KeyStripeLocks.ManyScope held, int[] stripes, IReadOnlyList<BatchWrite> writes, CancellationToken cancellationToken)
    {
        int generation = LoggedWrites.Enter();
        bool admitted = false;
        try
        {
            long address;
            var tickets = new long[stripes.Length];
            try
            {
                _fault.ThrowIfFaulted();
                address = await Log.AppendAsync(writes).ConfigureAwait(false);
                for (int i = 0; i < stripes.Length; i++)
                {
                    tickets[i] = _turns.TakeTicket(stripes[i]);
                }
            }
            finally
            {
                held.Dispose();
            }

            ExceptionDispatchInfo? commitFailure = await CommitOrCaptureAsync(address).ConfigureAwait(false);
            for (int i = 0; i < stripes.Length; i++)
            {
                await _turns.WaitForTurnAsync(stripes[i], tickets[i]).ConfigureAwait(false);
            }

            var turn = WriteTurn.InTurns(stripes, tickets, generation);
            if (commitFailure is not null)
            {
                EndTurns(turn);
                commitFailure.Throw();
            }

            await Applies.EnterWriteAsync().ConfigureAwait(false);
            admitted = true;
            return turn;
        }
        finally
        {
            if (!admitted)
            {
                LoggedWrites.Exit(generation);
            }
        }
    }

    /// <inheritdoc/>
    /// <remarks>A logged write counts also when it changed nothing (a delete of an absent key): the log grew by it.</remarks>
    public void EndWrite(in WriteTurn turn, bool applied, bool changedRecords)
    {
        EndTurns(turn);
        Applies.ExitWrite();
        LoggedWrites.Exit(turn.Generation);
        if (applied)
        {
            Checkpointer.NoteWrite();
            if (Log.IsDueForCheckpoint)
            {
                Checkpointer.RequestCheckpointForLogSize();
            }
        }
    }

    /// <inheritdoc/>
    /// <remarks>A write is applied after it gives its stripe back: this waits for the logged ones.</remarks>
    public async ValueTask WaitUntilAppliedAsync(int[] stripes)
    {
        for (int i = 0; i < stripes.Length; i++)
        {
            await _turns.WaitUntilAppliedAsync(stripes[i]).ConfigureAwait(false);
        }
    }

    /// <inheritdoc/>
    public Task CheckpointAsync(CancellationToken cancellationToken) => Checkpointer.CheckpointAsync("on demand", cancellationToken);

    /// <inheritdoc/>
    public Task<T> RunBetweenCheckpointsAsync<T>(Func<Task<T>> work) => Checkpointer.RunBetweenCheckpointsAsync(work);

    /// <inheritdoc/>
    /// <remarks>The checkpoint deletes the emptied segments once it has recorded the new begin address.</remarks>
    public Task ReleaseCompactedLogAsync(CancellationToken cancellationToken) => Checkpointer.CheckpointAsync("compaction", cancellationToken);

    /// <inheritdoc/>
    /// <remarks>
    /// Yes: a Commit-mode store's passes seldom reach the back-pressure bound (its writers wait on their commits), so
    /// segments released only every eighth of the threshold left its files over three times the live data in single
    /// seconds. Its checkpoints hold the writers for hundredths of a millisecond (0.03 ms at the median: docs/benchmarks.md,
    /// "Where Commit mode's tail beside a checkpoint goes"); released at once, the files and the writers' tail beside
    /// checkpoints both shrank over ten minutes, at the same throughput ("Commit mode gives emptied segments back at once").
    /// </remarks>
    public bool ReleasesEachEmptiedSegment => true;

    /// <inheritdoc/>
    /// <remarks>The last commit persists the log's new begin address, which deletes the segments the last checkpoint made unneeded.</remarks>
    public async Task CloseAsync()
    {
        await Checkpointer.DisposeAsync().ConfigureAwait(false);
        if (!Log.IsFaulted)
        {
            await Log.CommitAsync().ConfigureAwait(false);
        }
    }

    /// <inheritdoc/>
    public ValueTask DisposeAsync() => Log.DisposeAsync();

    /// <summary>
    /// Waits until the log has committed the entry at <paramref name="address"/>. A failure is captured rather than
    /// thrown: the write must still wait for its turn and end it, or the writes after it on its stripes would wait forever.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<ExceptionDispatchInfo?> CommitOrCaptureAsync(long address)
    {
        try
        {
            await Log.WaitForCommitAsync(address).ConfigureAwait(false);
            return null;
        }
        catch (StoreFaultedException e)
        {
            return ExceptionDispatchInfo.Capture(e);
        }
    }

    private void EndTurns(in WriteTurn turn)
    {
        if (turn.StripeNumbers is { } stripes)
        {
            for (int i = 0; i < stripes.Length; i++)
            {
                _turns.EndTurn(stripes[i], turn.Tickets![i]);
            }
        }
        else
        {
            _turns.EndTurn(turn.StripeNumber, turn.Ticket);
        }
    }
}
