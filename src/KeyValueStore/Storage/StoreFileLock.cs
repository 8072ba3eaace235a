using System;
using System.IO;

namespace KeyValueStore.Storage;

/// <summary>
/// An exclusive lock on a store's files, held from construction to disposal, so that a second store on the same files,
/// in this process or another, is refused with <see cref="StoreLockedException"/> instead of corrupting them.
/// </summary>
/// <remarks>
/// The lock is an open <see cref="FileStream"/> with <see cref="FileShare.None"/>. On Linux and macOS .NET backs that with
/// <c>flock</c>, which the kernel releases when the process dies, so a crash never leaves a stale lock behind; on Windows
/// the share mode itself excludes other openers. The file stays in place when the store closes: deleting it could let a
/// third store lock a new file while a second one still holds the old, unlinked one.
/// </remarks>
internal sealed class StoreFileLock : IDisposable
{
    private readonly FileStream _lockFile;

    private StoreFileLock(FileStream lockFile)
    {
        _lockFile = lockFile;
    }

    public static StoreFileLock Acquire(string lockFilePath)
    {
        try
        {
            return new StoreFileLock(new FileStream(lockFilePath, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None, 1));
        }
        catch (IOException e)
        {
            throw new StoreLockedException(lockFilePath, e);
        }
    }

    public void Dispose() => _lockFile.Dispose();

    /// <summary>
    /// Deletes the lock file, then releases the lock: for a scratch store whose files are all deleted on close, so no
    /// lock file is left behind. Deleting while still holding the lock means no other store can hold it at that moment.
    /// </summary>
    public void ReleaseAndDelete()
    {
        try
        {
            File.Delete(_lockFile.Name);
        }
        catch (IOException)
        {
            // Windows refuses to delete a file open without FileShare.Delete; an empty lock file left behind is harmless.
        }

        _lockFile.Dispose();
    }
}
