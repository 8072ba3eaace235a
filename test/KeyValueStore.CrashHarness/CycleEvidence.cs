using System.IO;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// Keeps a copy of the store's files as the previous cycle's crash left them, so that a violation found by the next
/// recovery can be replayed: the recovery itself changes the files (a torn tail cleared, a checkpoint taken).
/// </summary>
internal sealed class CycleEvidence(string directory)
{
    private readonly string _before = directory.TrimEnd(Path.DirectorySeparatorChar) + ".before-cycle";

    /// <summary>Copies the store's files as they are now, before the cycle's worker recovers them.</summary>
    public void TakeBeforeCycle()
    {
        if (Directory.Exists(_before))
        {
            Directory.Delete(_before, recursive: true);
        }

        if (Directory.Exists(directory))
        {
            Copy(directory, _before);
        }
    }

    /// <summary>Keeps the copy taken before <paramref name="cycle"/>; returns where.</summary>
    public string KeepFor(int cycle)
    {
        string kept = directory.TrimEnd(Path.DirectorySeparatorChar) + $".violation-cycle-{cycle}";
        if (Directory.Exists(_before))
        {
            Copy(_before, kept);
        }

        return kept;
    }

    /// <summary>Deletes the copy taken before the last cycle.</summary>
    public void Delete()
    {
        if (Directory.Exists(_before))
        {
            Directory.Delete(_before, recursive: true);
        }
    }

    private static void Copy(string source, string destination)
    {
        foreach (string path in Directory.EnumerateFiles(source, "*", SearchOption.AllDirectories))
        {
            string target = Path.Combine(destination, Path.GetRelativePath(source, path));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(path, target, overwrite: true);
        }
    }
}
