using System;
using StackExchange.Redis;

namespace KeyValueStore.Redis;

/// <summary>Turns StackExchange.Redis' failures into the library's exceptions, and says which of them a retry may cure.</summary>
internal static class RedisFailures
{
    /// <summary>Whether the failure is the connection's (down, or no answer in time): a read may be retried after it.</summary>
    public static bool IsUnavailable(Exception exception) => exception is RedisConnectionException or RedisTimeoutException or TimeoutException;

    /// <summary>
    /// The library's exception for <paramref name="exception"/>, or null when it is to be rethrown as it is
    /// (cancellation, disposal, the caller's own exceptions).
    /// </summary>
    public static KeyValueStoreException? Translate(Exception exception, string operation, bool isWrite) => exception switch
    {
        _ when IsUnavailable(exception) => new StoreUnavailableException(operation, writeMayHaveApplied: isWrite, exception),
        RedisServerException or RedisCommandException => new RedisCommandFailedException(operation, exception),

        // Any other failure of the client (a protocol error, a connection torn down mid-answer): the server may have run the command.
        RedisException => new StoreUnavailableException(operation, writeMayHaveApplied: isWrite, exception),
        _ => null,
    };
}
