using System;
using System.IO;
using System.Runtime.InteropServices;

namespace KeyValueStore.Storage;

/// <summary>
/// Makes a directory's entries durable: a file created, renamed or deleted in it survives a power cut only once the
/// directory itself is flushed (<c>fsync</c> on the directory, POSIX). Flushing a file's data does not do it.
/// </summary>
/// <remarks>
/// The store flushes directories where a power cut would otherwise undo what it already relies on: a manifest or
/// checkpoint record renamed into place (<see cref="ChecksummedJsonFile"/>), a checkpoint's new folders before the
/// record names them, and a new write-ahead log segment before a commit in it is acknowledged
/// (<see cref="SegmentDirectoryDurableDevice"/>). On Windows it does nothing: NTFS journals its metadata, and .NET
/// offers no handle on a directory to flush. Tests derive from it to watch the calls.
/// </remarks>
internal partial class DirectoryDurability
{
    // errno EINVAL: the file system cannot flush a directory (some network file systems); nothing more can be done.
    private const int InvalidArgument = 22;

    /// <summary>Gets the one that flushes the file system's directories.</summary>
    public static DirectoryDurability FileSystem { get; } = new();

    /// <summary>Flushes <paramref name="directory"/>'s entries to disk.</summary>
    /// <exception cref="IOException">The directory could not be opened or flushed.</exception>
    public virtual void Flush(string directory)
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        int descriptor = Open(directory, 0 /* O_RDONLY */);
        if (descriptor < 0)
        {
            throw new IOException($"The directory '{directory}' could not be opened to flush it (errno {Marshal.GetLastPInvokeError()}).");
        }

        try
        {
            if (Fsync(descriptor) != 0 && Marshal.GetLastPInvokeError() is int error && error != InvalidArgument)
            {
                throw new IOException($"The directory '{directory}' could not be flushed to disk (errno {error}).");
            }
        }
        finally
        {
            _ = Close(descriptor);
        }
    }

    /// <summary>Flushes <paramref name="directory"/> and each directory above it up to and including <paramref name="through"/>.</summary>
    public void FlushUpTo(string directory, string through)
    {
        string stop = Path.GetFullPath(through).TrimEnd(Path.DirectorySeparatorChar);
        for (string? current = Path.GetFullPath(directory).TrimEnd(Path.DirectorySeparatorChar); current is not null; current = Path.GetDirectoryName(current))
        {
            Flush(current);
            if (string.Equals(current, stop, StringComparison.Ordinal))
            {
                return;
            }
        }
    }

    [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Open(string path, int flags);

    [LibraryImport("libc", EntryPoint = "fsync", SetLastError = true)]
    private static partial int Fsync(int descriptor);

    [LibraryImport("libc", EntryPoint = "close", SetLastError = true)]
    private static partial int Close(int descriptor);
}
