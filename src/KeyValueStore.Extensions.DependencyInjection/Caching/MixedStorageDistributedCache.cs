using System;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Caching.Distributed;

namespace KeyValueStore.Extensions.DependencyInjection.Caching;

/// <summary>
/// An <see cref="IDistributedCache"/> over a <see cref="MixedStorageKVStore{TKey, TValue}"/> of <c>string</c> to
/// <c>byte[]</c>: local and, in a durable mode, persistent across restarts. Each record carries its own expiry
/// (<see cref="CacheEntry"/>); an expired entry is never returned, and a read that finds one deletes it.
/// </summary>
/// <remarks>
/// A read of a sliding entry moves its expiry forward, and a read that finds an expired entry deletes it; both as one
/// atomic read-and-write of the key (<see cref="IMixedStorageKVStore{TKey, TValue}.UpdateManyAsync"/>), so neither
/// can overwrite or delete a value another caller set meanwhile, and the value returned is the one that step found. The synchronous members block on the asynchronous
/// ones, as the interface's other implementations do.
/// </remarks>
internal sealed class MixedStorageDistributedCache : IDistributedCache
{
    private readonly IMixedStorageKVStore<string, byte[]> _store;
    private readonly TimeProvider _time;

    /// <param name="store">The store the entries live in.</param>
    /// <param name="time">The clock expiries are measured on.</param>
    public MixedStorageDistributedCache(IMixedStorageKVStore<string, byte[]> store, TimeProvider time)
    {
        _store = store;
        _time = time;
    }

    public byte[]? Get(string key) => GetAsync(key).GetAwaiter().GetResult();

    public async Task<byte[]?> GetAsync(string key, CancellationToken token = default)
    {
        ArgumentNullException.ThrowIfNull(key);
        ReadResult<byte[]> read = await _store.ReadAsync(key, token).ConfigureAwait(false);
        if (!read.Found)
        {
            return null;
        }

        CacheEntry entry = CacheEntry.Read(key, read.Value!);
        if (!entry.HasExpiredAt(Now()) && !entry.Slides)
        {
            return CacheEntry.ValueOf(read.Value!);
        }

        // Expired (deleted now) or sliding (its expiry moved): one atomic step on the entry as it is then.
        return await SettleAsync(key, returnValue: true, token).ConfigureAwait(false);
    }

    public void Set(string key, byte[] value, DistributedCacheEntryOptions options) => SetAsync(key, value, options).GetAwaiter().GetResult();

    public async Task SetAsync(string key, byte[] value, DistributedCacheEntryOptions options, CancellationToken token = default)
    {
        ArgumentNullException.ThrowIfNull(key);
        ArgumentNullException.ThrowIfNull(value);
        ArgumentNullException.ThrowIfNull(options);
        long now = Now();
        CacheEntry entry = CacheEntry.SetAt(now, AbsoluteExpiry(options, now), SlidingWindow(options));
        await _store.UpsertAsync(key, entry.Wrap(value), token).ConfigureAwait(false);
    }

    public void Refresh(string key) => RefreshAsync(key).GetAwaiter().GetResult();

    public async Task RefreshAsync(string key, CancellationToken token = default)
    {
        ArgumentNullException.ThrowIfNull(key);
        await SettleAsync(key, returnValue: false, token).ConfigureAwait(false);
    }

    public void Remove(string key) => RemoveAsync(key).GetAwaiter().GetResult();

    public async Task RemoveAsync(string key, CancellationToken token = default)
    {
        ArgumentNullException.ThrowIfNull(key);
        await _store.DeleteAsync(key, token).ConfigureAwait(false);
    }

    /// <summary>The absolute expiry the options ask for, in Unix milliseconds, or <see cref="CacheEntry.Never"/>.</summary>
    private static long AbsoluteExpiry(DistributedCacheEntryOptions options, long now)
    {
        long absolute = CacheEntry.Never;
        if (options.AbsoluteExpiration is { } at)
        {
            absolute = at.ToUnixTimeMilliseconds();
            if (absolute <= now)
            {
                throw new ArgumentOutOfRangeException(nameof(options), at, "The absolute expiration is not in the future; set one after now, or a relative or sliding expiration.");
            }
        }

        if (options.AbsoluteExpirationRelativeToNow is { } relative)
        {
            if (relative <= TimeSpan.Zero)
            {
                throw new ArgumentOutOfRangeException(nameof(options), relative, "The relative expiration must be positive.");
            }

            absolute = Math.Min(absolute, now + (long)Math.Min(relative.TotalMilliseconds, CacheEntry.Never - now));
        }

        return absolute;
    }

    private static long SlidingWindow(DistributedCacheEntryOptions options)
    {
        if (options.SlidingExpiration is not { } sliding)
        {
            return 0;
        }

        if (sliding <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(options), sliding, "The sliding expiration must be positive.");
        }

        return Math.Max(1, (long)sliding.TotalMilliseconds);
    }

    /// <summary>
    /// In one atomic read-and-write of <paramref name="key"/>, as its entry is then: deletes it if it has expired, moves
    /// its expiry forward if it slides. Returns the value of an entry still live, when asked; otherwise null.
    /// </summary>
    private async Task<byte[]?> SettleAsync(string key, bool returnValue, CancellationToken token)
    {
        long now = Now();
        byte[]? live = null;
        await _store.UpdateManyAsync(
            [key],
            (current, writes) =>
            {
                if (!current[0].Found)
                {
                    return;
                }

                byte[] stored = current[0].Value!;
                CacheEntry entry = CacheEntry.Read(key, stored);
                if (entry.HasExpiredAt(now))
                {
                    writes.Delete(key);
                    return;
                }

                if (entry.Slides)
                {
                    entry.ReadAt(now).Restamp(stored);
                    writes.Upsert(key, stored);
                }

                live = stored;
            },
            token).ConfigureAwait(false);
        return returnValue && live is not null ? CacheEntry.ValueOf(live) : null;
    }

    private long Now() => _time.GetUtcNow().ToUnixTimeMilliseconds();
}
