using System;

namespace KeyValueStore.Redis;

/// <summary>
/// Thrown when the server could not be reached or did not answer in time: the connection is down, or the command timed
/// out (StackExchange.Redis' <c>asyncTimeout</c>). The store stays usable and reconnects by itself.
/// </summary>
/// <remarks>
/// A read that throws it was retried <see cref="RedisKVStoreOptions.ReadRetries"/> times first. A write that throws it
/// may or may not have been applied (<see cref="WriteMayHaveApplied"/>): the command may have reached the server before
/// the answer was lost. Read the key back before writing again if that matters.
/// </remarks>
public sealed class StoreUnavailableException : KeyValueStoreException
{
    internal StoreUnavailableException(string operation, bool writeMayHaveApplied, Exception innerException)
        : base(
            $"The store's {operation} failed: the Redis server did not answer ({innerException.Message}). "
            + (writeMayHaveApplied
                ? "The write may or may not have been applied; read the key back before writing it again. "
                : "Nothing was written. ")
            + "Check that the server is up and reachable; the connection is restored by itself once it is.",
            innerException)
    {
        Operation = operation;
        WriteMayHaveApplied = writeMayHaveApplied;
    }

    /// <summary>Gets the operation that failed, e.g. <c>"upsert"</c>.</summary>
    public string Operation { get; }

    /// <summary>Gets whether the failed operation was a write that may have reached the server before the failure.</summary>
    public bool WriteMayHaveApplied { get; }
}
