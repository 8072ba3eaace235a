using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Concurrency;

/// <summary>
/// Commit mode: lets the writes of each key stripe reach FASTER one at a time, in the order they reached the
/// write-ahead log, after each has been committed there.
/// </summary>
/// <remarks>
/// A Commit-mode write appends its log entry while it holds its stripe (<see cref="KeyStripeLocks"/>) and takes a
/// ticket there, so per stripe the order of tickets is the order of the log. It then gives the stripe back and waits
/// for its group commit, and only then for its turn to apply. Writes of one hot key thus share a group commit, as they
/// did when they were applied first and committed after, yet no reader sees a write before it is durable.
/// <para>
/// No deadlock: a write that holds tickets on several stripes (a batch) took them all while it held all those stripes,
/// so on every stripe two writes' tickets are in the same order, their log order. A write only ever waits for
/// tickets before its own, and those writes never wait for it. Every ticket's turn is ended, also when its write
/// fails, so a failed write never blocks the ones after it.
/// </para>
/// <para>
/// An uncontended turn costs no allocation: a write whose turn has come finds so with one read. Only a write that
/// must wait allocates the signal it waits on.
/// </para>
/// </remarks>
internal sealed class ApplyTurns
{
    private readonly Stripe[] _stripes;

    /// <param name="stripeCount">The number of stripes of the store's <see cref="KeyStripeLocks"/>.</param>
    public ApplyTurns(int stripeCount)
    {
        _stripes = new Stripe[stripeCount];
        for (int i = 0; i < stripeCount; i++)
        {
            _stripes[i] = new Stripe();
        }
    }

    /// <summary>Takes the next ticket of <paramref name="stripe"/>. The caller holds that stripe, and has just appended its log entry.</summary>
    public long TakeTicket(int stripe) => _stripes[stripe].TakeTicket();

    /// <summary>Completes when every ticket before <paramref name="ticket"/> has ended its turn.</summary>
    public ValueTask WaitForTurnAsync(int stripe, long ticket) => _stripes[stripe].WaitForTurnAsync(ticket);

    /// <summary>Ends the turn of <paramref name="ticket"/>, which must have come, and starts the next one's.</summary>
    public void EndTurn(int stripe, long ticket) => _stripes[stripe].EndTurn(ticket);

    /// <summary>
    /// Completes when every ticket taken so far on <paramref name="stripe"/> has ended its turn. The caller holds the
    /// stripe, so no new ticket can be taken meanwhile: a multi-key read then sees every write of the stripe that was logged.
    /// </summary>
    public ValueTask WaitUntilAppliedAsync(int stripe) => _stripes[stripe].WaitUntilAppliedAsync();

    private sealed class Stripe
    {
        private readonly object _lock = new();
        private readonly Dictionary<long, TaskCompletionSource> _waiting = [];
        private long _issued;
        private long _serving;

        public long TakeTicket() => Interlocked.Increment(ref _issued) - 1;

        public ValueTask WaitForTurnAsync(long ticket)
        {
            if (Volatile.Read(ref _serving) == ticket)
            {
                return ValueTask.CompletedTask;
            }

            lock (_lock)
            {
                if (_serving == ticket)
                {
                    return ValueTask.CompletedTask;
                }

                var signal = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                _waiting.Add(ticket, signal);
                return new ValueTask(signal.Task);
            }
        }

        public void EndTurn(long ticket)
        {
            TaskCompletionSource? next;
            lock (_lock)
            {
                Volatile.Write(ref _serving, ticket + 1);
                _waiting.Remove(ticket + 1, out next);
            }

            next?.TrySetResult();
        }

        public ValueTask WaitUntilAppliedAsync() => WaitForTurnAsync(Volatile.Read(ref _issued));
    }
}
