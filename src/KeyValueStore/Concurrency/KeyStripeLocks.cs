using System;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;

namespace KeyValueStore.Concurrency;

/// <summary>
/// Lets at most one write at a time into FASTER per stripe of hash buckets, so that no two of this store's writes ever race to
/// link a record into the same hash entry.
/// </summary>
/// <remarks>
/// Why: FASTER 2.6.5 reads a key's hash entry before it takes the bucket latch and links the new record after it. When
/// two writes of one key (or of two keys sharing a tag) interleave there, the second link fails, and FASTER keeps the
/// unlinked record for a retry by overwriting its key's length with the allocation size
/// (<c>SaveAllocationForRetry</c>). The retry usually updates the winner's record in place instead, so the record
/// stays in the log, invalid, with that length: every log scan (compaction, recovery) then computes a wrong size for
/// it and skips the records after it on the page. Compaction dropped them and recovery forgot them; the crash harness
/// found a key that had vanished, and a store under 32 writers of a few keys left several such records per run.
/// <para>
/// A link can only fail between operations on the same hash entry, which lives in one hash bucket, so stripes are
/// chosen by the low bits of FASTER's own key hash, never more of them than the index has buckets: keys of one bucket
/// always share a stripe, whatever the index size. (Not the tag bits: for short keys FASTER's hash leaves them nearly
/// constant.) The store never grows FASTER's index, which would change the buckets. Compaction's copies beside the
/// writers take the stripe of their key too; FASTER's own compaction, whose copies cannot, runs only while back-pressure
/// holds every writer out of the <see cref="WriteBarrier"/>. Reads take no stripe. An uncontended stripe costs one interlocked
/// operation to take and one to give back, and no allocation (<see cref="AsyncPermits"/>).
/// </para>
/// </remarks>
internal sealed class KeyStripeLocks
{
    private const int MaxStripes = 1024;

    private readonly AsyncPermits[] _stripes;
    private readonly long _stripeMask;

    /// <param name="indexBuckets">The number of buckets of the store's FASTER hash index (a power of two).</param>
    public KeyStripeLocks(long indexBuckets)
    {
        int count = (int)Math.Min(MaxStripes, indexBuckets);
        _stripeMask = count - 1;
        _stripes = new AsyncPermits[count];
        for (int i = 0; i < count; i++)
        {
            _stripes[i] = new AsyncPermits(1);
        }
    }

    /// <summary>Gets the number of stripes.</summary>
    public int StripeCount => _stripes.Length;

    /// <summary>The stripe of <paramref name="key"/>; computed before any await, since a span cannot cross one.</summary>
    public unsafe int StripeOf(ReadOnlySpan<byte> key)
    {
        fixed (byte* bytes = key)
        {
            var spanByte = SpanByte.FromPointer(bytes, key.Length);
            return (int)(SpanByteComparer.StaticGetHashCode64(ref spanByte) & _stripeMask);
        }
    }

    /// <summary>Waits for the stripe; dispose the result to let the next write of that stripe in.</summary>
    public ValueTask<Scope> EnterAsync(int stripe, CancellationToken cancellationToken = default)
    {
        return TryEnter(stripe, out Scope scope) ? new ValueTask<Scope>(scope) : WaitThenHoldAsync(_stripes[stripe], cancellationToken);
    }

    /// <summary>Takes the stripe when it is free; when it is held, returns false and waits for nothing.</summary>
    public bool TryEnter(int stripe, out Scope scope)
    {
        AsyncPermits permit = _stripes[stripe];
        scope = permit.TryTake() ? new Scope(permit) : default;
        return scope.IsHeld;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<Scope> WaitThenHoldAsync(AsyncPermits permit, CancellationToken cancellationToken)
    {
        await permit.TakeAsync(cancellationToken).ConfigureAwait(false);
        return new Scope(permit);
    }

    /// <summary>
    /// Waits for every stripe in <paramref name="sortedDistinctStripes"/>, one at a time in ascending order: everyone who holds more
    /// than one stripe takes them in that order, and a single write holds one, so no two waiters can each hold what the
    /// other waits for.
    /// </summary>
    /// <remarks>Cancelled while waiting, it gives back the stripes it already holds.</remarks>
    public async ValueTask<ManyScope> EnterManyAsync(int[] sortedDistinctStripes, CancellationToken cancellationToken = default)
    {
        int entered = 0;
        try
        {
            for (; entered < sortedDistinctStripes.Length; entered++)
            {
                await _stripes[sortedDistinctStripes[entered]].TakeAsync(cancellationToken).ConfigureAwait(false);
            }
        }
        catch
        {
            new ManyScope(this, sortedDistinctStripes, entered).Dispose();
            throw;
        }

        return new ManyScope(this, sortedDistinctStripes, entered);
    }

    /// <summary>The sorted, distinct stripes of the keys of <paramref name="items"/>.</summary>
    public int[] StripesOf<T>(System.Collections.Generic.IReadOnlyList<T> items, Func<T, ReadOnlyMemory<byte>> keyOf)
    {
        var stripes = new System.Collections.Generic.SortedSet<int>();
        for (int i = 0; i < items.Count; i++)
        {
            stripes.Add(StripeOf(keyOf(items[i]).Span));
        }

        var sorted = new int[stripes.Count];
        stripes.CopyTo(sorted);
        return sorted;
    }

    /// <summary>Several stripes held by one batch or multi-key read.</summary>
    public readonly struct ManyScope : IDisposable
    {
        private readonly KeyStripeLocks _locks;
        private readonly int[] _stripes;
        private readonly int _count;

        public ManyScope(KeyStripeLocks locks, int[] stripes, int count)
        {
            _locks = locks;
            _stripes = stripes;
            _count = count;
        }

        public void Dispose()
        {
            for (int i = _count - 1; i >= 0; i--)
            {
                _locks._stripes[_stripes[i]].Release();
            }
        }
    }

    /// <summary>A stripe held by one write.</summary>
    public readonly struct Scope : IDisposable
    {
        private readonly AsyncPermits? _stripe;

        public Scope(AsyncPermits stripe)
        {
            _stripe = stripe;
        }

        /// <summary>Gets whether this holds a stripe; the default scope holds none.</summary>
        public bool IsHeld => _stripe is not null;

        public void Dispose() => _stripe?.Release();
    }
}
