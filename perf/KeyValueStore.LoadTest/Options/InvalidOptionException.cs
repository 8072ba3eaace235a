using System;

namespace KeyValueStore.LoadTest.Options;

/// <summary>
/// Bad command-line input: an unknown option, a missing or malformed value, a value out of range, or
/// a directory that cannot be written. The message names the option, the value and what is allowed;
/// the program prints it with the usage and exits with <see cref="ExitCodes.BadInput"/>.
/// </summary>
internal sealed class InvalidOptionException : Exception
{
    public InvalidOptionException(string message)
        : base(message)
    {
    }

    public InvalidOptionException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
