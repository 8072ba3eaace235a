using System;

namespace KeyValueStore;

/// <summary>
/// Thrown when the log directory cannot be created, written or read: it is missing and cannot be created, this
/// process may not write there, or its disk is full or failing.
/// </summary>
/// <remarks>Thrown while the store is being opened; the files already there are left for the next open to recover.</remarks>
public sealed class LogDirectoryUnavailableException : KeyValueStoreException
{
    internal LogDirectoryUnavailableException(string directory, Exception innerException, string option = nameof(MixedStorageKVStoreOptions.LogDirectory))
        : base($"The log directory '{directory}' cannot be created, written or read ({innerException.Message}). "
            + $"Set {nameof(MixedStorageKVStoreOptions)}.{option} "
            + "to a directory this process can create files in, or free space on its disk or fix it; the files there were left as they were.", innerException)
    {
        Directory = directory;
    }

    /// <summary>Gets the directory that could not be used.</summary>
    public string Directory { get; }
}
