using System.IO;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>Bytes on disk as file sizes: the sum of the lengths of every file under a directory.</summary>
internal static class DirectorySize
{
    /// <summary>A store's files: those in its directory, and its write-ahead log's when that has a directory of its own (null when not).</summary>
    public static long OfStore(string directory, string? writeAheadLogDirectory) =>
        Of(directory) + (writeAheadLogDirectory is null ? 0 : Of(writeAheadLogDirectory));

    public static long Of(string directory)
    {
        if (!Directory.Exists(directory))
        {
            return 0;
        }

        long total = 0;
        foreach (FileInfo file in new DirectoryInfo(directory).EnumerateFiles("*", SearchOption.AllDirectories))
        {
            try
            {
                total += file.Length;
            }
            catch (FileNotFoundException)
            {
                // A store may delete a file (FASTER truncating its log) while it is listed.
            }
        }

        return total;
    }
}
