using System;

namespace KeyValueStore.Extensions.DependencyInjection.Caching;

/// <summary>
/// Thrown when a record of the distributed cache's store is not a cache entry: the store's directory holds a store of
/// <c>string</c> to <c>byte[]</c> written by something other than the cache.
/// </summary>
public sealed class CacheEntryFormatException : KeyValueStoreException
{
    internal CacheEntryFormatException(string key, int length)
        : base($"The distributed cache's record for key '{key}' ({length} bytes) is not a cache entry: the store's files were written by something other than the cache. Give the cache a LogDirectory or LogFileNamePrefix of its own.")
    {
        Key = key;
    }

    /// <summary>Gets the key whose record is not a cache entry.</summary>
    public string Key { get; }
}
