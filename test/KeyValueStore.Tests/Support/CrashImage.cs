using System;
using System.IO;
using System.Linq;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// A copy of a store's files taken while the store is open, as a crash of its process would leave them: what the store
/// had written by then, and no close-time checkpoint. The lock file stays behind; a dead process's lock dies with it.
/// </summary>
internal static class CrashImage
{
    /// <summary>Copies <paramref name="from"/> to <paramref name="to"/>, every file but lock files.</summary>
    public static void Copy(string from, string to)
    {
        Directory.CreateDirectory(to);
        foreach (string directory in Directory.GetDirectories(from, "*", SearchOption.AllDirectories))
        {
            Directory.CreateDirectory(directory.Replace(from, to, StringComparison.Ordinal));
        }

        foreach (string file in Directory.GetFiles(from, "*", SearchOption.AllDirectories).Where(path => !path.EndsWith(".lock", StringComparison.Ordinal)))
        {
            using var source = new FileStream(file, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            using FileStream target = File.Create(file.Replace(from, to, StringComparison.Ordinal));
            source.CopyTo(target);
        }
    }

    /// <summary>
    /// The crash of a Commit-mode store whose later write-ahead log flush reached the disk and nothing else did: copies the
    /// log's segment files of the later image <paramref name="from"/> over those of the earlier image <paramref name="to"/>.
    /// Returns the earlier image's log directory.
    /// </summary>
    public static string CopyWriteAheadLogSegments(string from, string to)
    {
        string logDirectory = Path.Combine(to, "store.wal");
        foreach (string segment in Directory.GetFiles(Path.Combine(from, "store.wal"), "log.*"))
        {
            File.Copy(segment, Path.Combine(logDirectory, Path.GetFileName(segment)), overwrite: true);
        }

        return logDirectory;
    }
}
