using System;
using System.Globalization;
using System.IO;
using KeyValueStore.LoadTest.Options;

namespace KeyValueStore.LoadTest.Running;

/// <summary>
/// The fresh directory a run's backend keeps its files in: inside --dir when given, else inside the
/// system's temporary directory. Created and proven writable before anything runs; deleted, with
/// everything in it, on dispose.
/// </summary>
internal sealed class RunDirectory : IDisposable
{
    private RunDirectory(string path)
    {
        Path = path;
    }

    public string Path { get; }

    /// <summary>Makes the directory, or throws <see cref="InvalidOptionException"/> naming <paramref name="option"/> and why it cannot be used.</summary>
    public static RunDirectory Create(string? parent, string option = "--dir")
    {
        string root = parent ?? System.IO.Path.Combine(System.IO.Path.GetTempPath(), "kvstore-loadtest");
        string name = string.Create(CultureInfo.InvariantCulture, $"run-{DateTime.UtcNow:yyyyMMdd-HHmmss}-{Guid.NewGuid():N}")[..28];
        string path;
        try
        {
            path = System.IO.Path.Combine(System.IO.Path.GetFullPath(root), name);
            Directory.CreateDirectory(path);
            string probe = System.IO.Path.Combine(path, ".write-probe");
            using (new FileStream(probe, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1, FileOptions.DeleteOnClose))
            {
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
        {
            throw new InvalidOptionException(parent is null
                ? $"The temporary directory '{root}' is not writable ({e.Message}); give a writable directory with {option}."
                : $"{option} '{parent}' is not writable: {e.Message}", e);
        }

        return new RunDirectory(path);
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (DirectoryNotFoundException)
        {
        }
    }
}
