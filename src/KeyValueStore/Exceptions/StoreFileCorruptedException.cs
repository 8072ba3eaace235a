using System;

namespace KeyValueStore;

/// <summary>
/// Thrown when one of a store's files (a log segment, checkpoint metadata, the manifest) is missing, truncated or
/// damaged, so the store cannot be opened without losing or misreading data. Nothing is changed on disk.
/// </summary>
public sealed class StoreFileCorruptedException : KeyValueStoreException
{
    internal StoreFileCorruptedException(string filePath, string problem, Exception? innerException = null)
        : base($"The store file '{filePath}' is damaged: {problem}. The store was not opened and no file was changed. "
            + "Restore the directory from a backup, or move it away to start an empty store.", innerException)
    {
        FilePath = filePath;
        Problem = problem;
    }

    /// <summary>Gets the damaged file.</summary>
    public string FilePath { get; }

    /// <summary>Gets what is wrong with it.</summary>
    public string Problem { get; }
}
