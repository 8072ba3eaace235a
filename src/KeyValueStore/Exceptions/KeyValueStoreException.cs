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
}
