using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.LoadTest.Verification;

/// <summary>
/// Striped asynchronous locks by record id. With --verify, every write takes its id's stripe, so
/// writes of one id never overlap and versions complete in order; that is what lets a read be judged
/// against a version range (see <see cref="ExpectedContents"/>). Ids sharing a stripe wait for each
/// other, which costs throughput: verify runs check correctness, not speed. A batch holds the stripes of
/// all its updates at once (<see cref="LockManyAsync"/>).
/// </summary>
internal sealed class KeyLocks : IDisposable
{
    private const int StripeCount = 1024;
    private readonly SemaphoreSlim[] _stripes = new SemaphoreSlim[StripeCount];

    public KeyLocks()
    {
        for (int i = 0; i < _stripes.Length; i++)
        {
            _stripes[i] = new SemaphoreSlim(1, 1);
        }
    }

    public async ValueTask<Held> LockAsync(long id)
    {
        SemaphoreSlim stripe = _stripes[StripeOf(id)];
        await stripe.WaitAsync().ConfigureAwait(false);
        return new Held(stripe);
    }

    /// <summary>
    /// Takes the stripe of every id in <paramref name="ids"/>, each stripe once (ids of a batch can share one,
    /// and a stripe is not re-entrant), in ascending order: whoever holds several stripes takes them in that
    /// order, and everyone else holds one, so no two waiters can each hold what the other waits for.
    /// </summary>
    public async ValueTask<HeldMany> LockManyAsync(IEnumerable<long> ids)
    {
        SemaphoreSlim[] stripes = ids.Select(StripeOf).Distinct().Order().Select(index => _stripes[index]).ToArray();
        foreach (SemaphoreSlim stripe in stripes)
        {
            await stripe.WaitAsync().ConfigureAwait(false);
        }

        return new HeldMany(stripes);
    }

    public void Dispose()
    {
        foreach (SemaphoreSlim stripe in _stripes)
        {
            stripe.Dispose();
        }
    }

    private static int StripeOf(long id) => (int)((ulong)id % StripeCount);

    /// <summary>A held stripe; disposing releases it.</summary>
    public readonly struct Held : IDisposable
    {
        private readonly SemaphoreSlim? _stripe;

        public Held(SemaphoreSlim stripe)
        {
            _stripe = stripe;
        }

        public void Dispose() => _stripe?.Release();
    }

    /// <summary>The held stripes of a batch; disposing releases them all.</summary>
    public readonly struct HeldMany : IDisposable
    {
        private readonly SemaphoreSlim[]? _stripes;

        public HeldMany(SemaphoreSlim[] stripes)
        {
            _stripes = stripes;
        }

        public void Dispose()
        {
            foreach (SemaphoreSlim stripe in _stripes ?? [])
            {
                stripe.Release();
            }
        }
    }
}
