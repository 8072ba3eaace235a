using System;

namespace KeyValueStore;

/// <summary>
/// Thrown when another store, in this process or another, already has the same files open. Two stores on the same
/// files would corrupt them, so the second one is refused.
/// </summary>
public sealed class StoreLockedException : KeyValueStoreException
{
    internal StoreLockedException(string lockFilePath, Exception innerException)
        : base($"Another store already has the files of '{lockFilePath}' open (it holds that lock file). Dispose the other store first, "
            + $"or give this one another {nameof(MixedStorageKVStoreOptions.LogDirectory)} or {nameof(MixedStorageKVStoreOptions.LogFileNamePrefix)}.", innerException)
    {
        LockFilePath = lockFilePath;
    }

    /// <summary>Gets the lock file another store holds.</summary>
    public string LockFilePath { get; }
}
