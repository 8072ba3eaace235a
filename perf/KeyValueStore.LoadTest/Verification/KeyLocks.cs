using System;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.LoadTest.Verification;

/// <summary>
/// Striped asynchronous locks by record id. With --verify, every write takes its id's stripe, so
/// writes of one id never overlap and versions complete in order; that is what lets a read be judged
/// against a version range (see <see cref="ExpectedContents"/>). Ids sharing a stripe wait for each
/// other, which costs throughput: verify runs check correctness, not speed.
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
        SemaphoreSlim stripe = _stripes[(int)((ulong)id % StripeCount)];
        await stripe.WaitAsync().ConfigureAwait(false);
        return new Held(stripe);
    }

    public void Dispose()
    {
        foreach (SemaphoreSlim stripe in _stripes)
        {
            stripe.Dispose();
        }
    }

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
}
