using System;

namespace KeyValueStore;

/// <summary>
/// The base type of every exception this library throws on purpose, so callers can catch the
/// library's own failures apart from those of the runtime.
/// </summary>
public abstract class KeyValueStoreException : Exception
{
    /// <summary>Creates the exception with a message that says what was wrong and what to change.</summary>
    /// <param name="message">What was wrong, the offending value, and what to change.</param>
    /// <param name="innerException">The failure underneath, if any.</param>
    protected KeyValueStoreException(string message, Exception? innerException = null)
        : base(message, innerException)
    {
    }

    /// <summary>
    /// Whether <paramref name="exception"/> is one a caller must not see as it is: neither the library's own, nor a
    /// cancellation or a disposal, which callers expect. Code that runs the storage engine wraps such an exception in one
    /// of the library's.
    /// </summary>
    internal static bool IsForeign(Exception exception) =>
        exception is not (KeyValueStoreException or OperationCanceledException or ObjectDisposedException);
}
