using System.Threading;

namespace KeyValueStore.Concurrency;

/// <summary>
/// Counts the writes applied in each key stripe (<see cref="KeyStripeLocks"/>), so that whoever found a record to be its
/// key's latest can tell later, once it holds the stripe, whether a write of that stripe has been applied since.
/// </summary>
/// <remarks>
/// Why: compaction's copier checks each record without a lock, then takes the record's stripe and must be sure the record
/// is still the latest before it copies it. Reading it again costs as much as the first check (from the disk, often); an
/// unchanged count says the same for the price of one read of memory. A writer counts after its record is in the log
/// and before it ends its turn (which gives the stripe back, or marks the write applied), so a count read after taking the
/// stripe and waiting for the applied writes has seen every write that could have changed the record.
/// </remarks>
internal sealed class StripeWriteCounts
{
    private readonly long[] _counts;

    /// <param name="stripeCount">The number of stripes (<see cref="KeyStripeLocks.StripeCount"/>).</param>
    public StripeWriteCounts(int stripeCount) => _counts = new long[stripeCount];

    /// <summary>Gets the number of writes applied so far in <paramref name="stripe"/>.</summary>
    public long Read(int stripe) => Volatile.Read(ref _counts[stripe]);

    /// <summary>Counts a write applied (or tried: a count too many costs only a second check) in <paramref name="stripe"/>.</summary>
    public void Count(int stripe) => Interlocked.Increment(ref _counts[stripe]);

    /// <summary>Counts a batch applied (or tried) in each of <paramref name="stripes"/>.</summary>
    public void Count(int[] stripes)
    {
        foreach (int stripe in stripes)
        {
            Interlocked.Increment(ref _counts[stripe]);
        }
    }
}
