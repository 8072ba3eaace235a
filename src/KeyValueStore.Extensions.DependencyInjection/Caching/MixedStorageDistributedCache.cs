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
/// can overwrite or delete a value another caller set meanwhile. The synchronous members block on the asynchronous
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

        long now = Now();
        CacheEntry entry = CacheEntry.Read(key, read.Value!);
        if (entry.HasExpiredAt(now))
        {
            await DeleteIfExpiredAsync(key, token).ConfigureAwait(false);
            return null;
        }

        if (entry.Slides)
        {
            await SlideAsync(key, now, token).ConfigureAwait(false);
        }

        return CacheEntry.ValueOf(read.Value!);
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
        await SlideAsync(key, Now(), token).ConfigureAwait(false);
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

    /// <summary>Moves a sliding entry's expiry forward from <paramref name="now"/>, unless it has expired or is gone; deletes it if it has expired.</summary>
    private ValueTask SlideAsync(string key, long now, CancellationToken token) =>
        _store.UpdateManyAsync(
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
                }
                else if (entry.Slides)
                {
                    entry.ReadAt(now).Restamp(stored);
                    writes.Upsert(key, stored);
                }
            },
            token);

    /// <summary>Deletes the entry under <paramref name="key"/> if the one there now has expired (a value set meanwhile stays).</summary>
    private ValueTask DeleteIfExpiredAsync(string key, CancellationToken token)
    {
        long now = Now();
        return _store.UpdateManyAsync(
            [key],
            (current, writes) =>
            {
                if (current[0].Found && CacheEntry.Read(key, current[0].Value!).HasExpiredAt(now))
                {
                    writes.Delete(key);
                }
            },
            token);
    }

    private long Now() => _time.GetUtcNow().ToUnixTimeMilliseconds();
}
