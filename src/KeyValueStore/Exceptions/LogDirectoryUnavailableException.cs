using System;

namespace KeyValueStore;

/// <summary>
/// Thrown when the log directory cannot be created or written to.
/// </summary>
/// <remarks>Thrown while the store is being constructed, before FASTER is started.</remarks>
public sealed class LogDirectoryUnavailableException : KeyValueStoreException
{
    internal LogDirectoryUnavailableException(string directory, Exception innerException)
        : base($"The log directory '{directory}' cannot be created or written to ({innerException.Message}). "
            + $"Set {nameof(MixedStorageKVStoreOptions)}.{nameof(MixedStorageKVStoreOptions.LogDirectory)} "
            + "to a directory this process can create files in.", innerException)
    {
        Directory = directory;
    }

    /// <summary>Gets the directory that could not be used.</summary>
    public string Directory { get; }
}
