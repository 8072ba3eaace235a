using System.Threading;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Durability;

/// <summary>
/// A write admitted by its <see cref="IWriteJournal"/> to be applied: what it holds until then (its key stripes, or
/// its places in the stripes' apply order) and the cancellation that still applies to it. A journal's
/// <see cref="IWriteJournal.EndWrite"/> gives it all back.
/// </summary>
internal readonly struct WriteTurn
{
    private readonly KeyStripeLocks.Scope _stripe;
    private readonly KeyStripeLocks.ManyScope _stripes;

    private WriteTurn(KeyStripeLocks.Scope stripe, KeyStripeLocks.ManyScope stripes, int stripeNumber, long ticket, int[]? stripeNumbers, long[]? tickets, int generation, CancellationToken cancellation, bool isLogged)
    {
        IsLogged = isLogged;
        Generation = generation;
        _stripe = stripe;
        _stripes = stripes;
        StripeNumber = stripeNumber;
        Ticket = ticket;
        StripeNumbers = stripeNumbers;
        Tickets = tickets;
        Cancellation = cancellation;
    }

    /// <summary>Gets the cancellation that applies while the write waits to be applied: none once a journal has recorded it.</summary>
    public CancellationToken Cancellation { get; }

    /// <summary>
    /// Gets whether the write is durable already, committed to the write-ahead log before it is applied: it is then
    /// acknowledged even if the store faults before its apply, since a reopen replays it (Commit mode).
    /// </summary>
    public bool IsLogged { get; }

    /// <summary>Gets the stripe of a single write applied in turn.</summary>
    public int StripeNumber { get; }

    /// <summary>Gets the <see cref="ApplyTurns"/> ticket of a single write applied in turn.</summary>
    public long Ticket { get; }

    /// <summary>Gets the <see cref="WriteGenerations"/> generation of a write applied in turn.</summary>
    public int Generation { get; }

    /// <summary>Gets the stripes of a batch applied in turn, or null.</summary>
    public int[]? StripeNumbers { get; }

    /// <summary>Gets the tickets of a batch applied in turn, one per stripe of <see cref="StripeNumbers"/>, or null.</summary>
    public long[]? Tickets { get; }

    /// <summary>A write applied while it holds its stripe.</summary>
    public static WriteTurn HoldingStripe(KeyStripeLocks.Scope stripe, CancellationToken cancellation) => new(stripe, default, 0, 0, null, null, 0, cancellation, isLogged: false);

    /// <summary>A batch applied while it holds its stripes.</summary>
    public static WriteTurn HoldingStripes(KeyStripeLocks.ManyScope stripes, CancellationToken cancellation) => new(default, stripes, 0, 0, null, null, 0, cancellation, isLogged: false);

    /// <summary>A write committed to the log that gave its stripe back and is applied at its turn, with no cancellation left.</summary>
    public static WriteTurn InTurn(int stripe, long ticket, int generation) => new(default, default, stripe, ticket, null, null, generation, CancellationToken.None, isLogged: true);

    /// <summary>A batch committed to the log that gave its stripes back and is applied at its turns, with no cancellation left.</summary>
    public static WriteTurn InTurns(int[] stripes, long[] tickets, int generation) => new(default, default, 0, 0, stripes, tickets, generation, CancellationToken.None, isLogged: true);

    /// <summary>Gives back the stripes the write holds, if it holds any.</summary>
    public void ReleaseStripes()
    {
        _stripe.Dispose();
        _stripes.Dispose();
    }
}
