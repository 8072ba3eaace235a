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
}
