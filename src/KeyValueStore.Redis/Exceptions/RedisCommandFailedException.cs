using System;

namespace KeyValueStore.Redis;

/// <summary>
/// Thrown when the server answered a command with an error: out of memory, a key of the store's namespace holding
/// another data type (<c>WRONGTYPE</c>), a disabled command, or keys of one call in several cluster slots.
/// </summary>
/// <remarks>The store stays usable; the server's error is in the message.</remarks>
public sealed class RedisCommandFailedException : KeyValueStoreException
{
    internal RedisCommandFailedException(string operation, Exception innerException)
        : base(
            $"The store's {operation} failed: the Redis server refused it ({innerException.Message}). "
            + "A WRONGTYPE error means another program wrote a key of this store's namespace: give the store a "
            + $"{nameof(RedisKVStoreOptions.KeyPrefix)} of its own. On a cluster, the keys of one batch, ReadMany or "
            + "UpdateMany call must hash to one slot (see docs/scale-out.md).",
            innerException)
    {
        Operation = operation;
    }

    /// <summary>Gets the operation that failed, e.g. <c>"batch"</c>.</summary>
    public string Operation { get; }
}
