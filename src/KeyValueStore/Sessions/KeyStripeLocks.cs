using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;

namespace KeyValueStore.Sessions;

/// <summary>
/// Lets at most one write at a time into FASTER per hash tag, so that no two of this store's writes ever race to
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
/// A link can only fail between operations on the same hash entry, which needs the same tag, so stripes are chosen by
/// the tag bits of FASTER's own key hash: correct whatever the index size. Compaction's copies are kept away from
/// writes by <see cref="WriteBarrier"/>. Reads take no stripe. An uncontended stripe costs one interlocked operation
/// and no allocation.
/// </para>
/// </remarks>
internal sealed class KeyStripeLocks
{
    // FASTER's tag is the top 14 bits of the 64-bit key hash (Constants.kHashTagShift = 50).
    private const int TagShift = 64 - 14;
    private const int StripeCount = 1024;

    private readonly SemaphoreSlim[] _stripes = new SemaphoreSlim[StripeCount];

    public KeyStripeLocks()
    {
        for (int i = 0; i < StripeCount; i++)
        {
            _stripes[i] = new SemaphoreSlim(1, 1);
        }
    }

    /// <summary>The stripe of <paramref name="key"/>; computed before any await, since a span cannot cross one.</summary>
    public static unsafe int StripeOf(ReadOnlySpan<byte> key)
    {
        fixed (byte* bytes = key)
        {
            var spanByte = SpanByte.FromPointer(bytes, key.Length);
            ulong hash = (ulong)SpanByteComparer.StaticGetHashCode64(ref spanByte);
            return (int)(hash >> TagShift) & (StripeCount - 1);
        }
    }

    /// <summary>Waits for the stripe; dispose the result to let the next write of that stripe in.</summary>
    public ValueTask<Held> EnterAsync(int stripe)
    {
        SemaphoreSlim semaphore = _stripes[stripe];
        return semaphore.Wait(0) ? new ValueTask<Held>(new Held(semaphore)) : WaitThenHoldAsync(semaphore);
    }

    private static async ValueTask<Held> WaitThenHoldAsync(SemaphoreSlim semaphore)
    {
        await semaphore.WaitAsync().ConfigureAwait(false);
        return new Held(semaphore);
    }

    /// <summary>A stripe held by one write.</summary>
    public readonly struct Held : IDisposable
    {
        private readonly SemaphoreSlim? _semaphore;

        public Held(SemaphoreSlim semaphore)
        {
            _semaphore = semaphore;
        }

        public void Dispose() => _semaphore?.Release();
    }
}
