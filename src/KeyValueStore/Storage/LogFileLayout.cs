using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace KeyValueStore.Storage;

/// <summary>
/// Where a store's files are, all in one directory and named after one prefix: the log's segments
/// <c>&lt;prefix&gt;.log.&lt;n&gt;</c> (one preallocated file each), the lock file <c>&lt;prefix&gt;.lock</c>, and for a
/// durable store the manifest <c>&lt;prefix&gt;.manifest.json</c> and FASTER's checkpoints under <c>&lt;prefix&gt;.checkpoints/</c>;
/// a Commit-mode store also has its write-ahead log under <c>&lt;prefix&gt;.wal/</c> (or, with its own directory, under
/// <c>&lt;prefix&gt;.&lt;store id&gt;.wal/</c> there), and a durable store the checksums of its segments' sectors in <c>&lt;prefix&gt;.sums.&lt;n&gt;</c>.
/// </summary>
/// <remarks>
/// No other file name may start with <c>&lt;prefix&gt;.log</c>: when FASTER reopens a log it takes every such file for a segment
/// and parses its number.
/// </remarks>
internal sealed class LogFileLayout
{
    public LogFileLayout(string directory, string prefix)
    {
        Directory = directory;
        Prefix = prefix;
        LogBasePath = Path.Combine(directory, prefix + ".log");
        LockFilePath = Path.Combine(directory, prefix + ".lock");
        ManifestPath = Path.Combine(directory, prefix + ".manifest.json");
        CheckpointRecordPath = Path.Combine(directory, prefix + ".checkpoint.json");
        CheckpointDirectory = Path.Combine(directory, prefix + ".checkpoints");
        WriteAheadLogDirectory = Path.Combine(directory, prefix + ".wal");
        SectorChecksumBasePath = Path.Combine(directory, prefix + ".sums");
        SpareSegmentBasePath = Path.Combine(directory, prefix + ".spare");
    }

    public string Directory { get; }

    public string Prefix { get; }

    /// <summary>Gets the path FASTER's device appends <c>.&lt;segment&gt;</c> to.</summary>
    public string LogBasePath { get; }

    /// <summary>Gets the file whose lock says a store has these files open.</summary>
    public string LockFilePath { get; }

    /// <summary>Gets the manifest of a durable store: format version, record format, and the settings its files depend on.</summary>
    public string ManifestPath { get; }

    /// <summary>Gets the record of a durable store's latest completed checkpoint, kept beside FASTER's own metadata.</summary>
    public string CheckpointRecordPath { get; }

    /// <summary>Gets the directory FASTER writes a durable store's checkpoints to.</summary>
    public string CheckpointDirectory { get; }

    /// <summary>Gets the directory of a Commit-mode store's write-ahead log (its segments and its commit file).</summary>
    public string WriteAheadLogDirectory { get; }

    /// <summary>Gets the path the checksum files of a durable store's segments append <c>.&lt;segment&gt;</c> to (<see cref="SectorChecksums"/>).</summary>
    public string SectorChecksumBasePath { get; }

    /// <summary>
    /// Gets the path emptied segment files kept for reuse append <c>.&lt;n&gt;</c> to (<see cref="SegmentRecyclingDevice"/>).
    /// Not under <see cref="LogBasePath"/>: FASTER takes every file whose name starts with it for a segment.
    /// </summary>
    public string SpareSegmentBasePath { get; }

    /// <summary>Gets the path of spare segment file <paramref name="number"/>.</summary>
    public string SpareSegmentPath(long number) => $"{SpareSegmentBasePath}.{number.ToString(System.Globalization.CultureInfo.InvariantCulture)}";

    /// <summary>Gets the path of the file holding the sector checksums of segment <paramref name="segment"/>.</summary>
    public string SectorChecksumPath(long segment) => $"{SectorChecksumBasePath}.{segment.ToString(System.Globalization.CultureInfo.InvariantCulture)}";

    /// <summary>
    /// Gets the directory of a Commit-mode store's write-ahead log when it lives in <paramref name="directory"/>, outside the
    /// store's own (<see cref="StoreSettings.WriteAheadLogDirectory"/>): named after the store's id too, so that stores of
    /// one prefix can share that directory.
    /// </summary>
    public string WriteAheadLogDirectoryIn(string directory, string storeId) => Path.Combine(directory, $"{Prefix}.{storeId}.wal");

    /// <summary>Gets the path of segment file <paramref name="segment"/>.</summary>
    public string SegmentPath(long segment) => $"{LogBasePath}.{segment.ToString(System.Globalization.CultureInfo.InvariantCulture)}";

    /// <summary>
    /// Creates the directory if needed and proves it is writable by creating and deleting a probe file,
    /// so an unusable directory fails here with a clear exception rather than later inside FASTER's
    /// background flush.
    /// </summary>
    public void EnsureWritable() => EnsureWritable(Directory);

    /// <summary>As <see cref="EnsureWritable()"/>, for another directory the store keeps files in, set by <paramref name="option"/>.</summary>
    public void EnsureWritable(string directory, string option = nameof(MixedStorageKVStoreOptions.LogDirectory))
    {
        try
        {
            System.IO.Directory.CreateDirectory(directory);
            // A name of its own: stores of one prefix may share a directory (a write-ahead log's) and check it at once.
            string probe = Path.Combine(directory, $".{Prefix}.{Guid.NewGuid():N}.write-probe");
            using (new FileStream(probe, FileMode.Create, FileAccess.Write, FileShare.None, 1, FileOptions.DeleteOnClose))
            {
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
        {
            throw new LogDirectoryUnavailableException(directory, e, option);
        }
    }

    /// <summary>Lists the segment files that exist now, in segment order.</summary>
    /// <remarks>FASTER deletes truncated segments on a background task, so a file may vanish while being listed; it is left out.</remarks>
    public IReadOnlyList<LogSegmentFile> Segments() => Numbered(LogBasePath);

    /// <summary>Lists the sector checksum files that exist now, in segment order.</summary>
    public IReadOnlyList<LogSegmentFile> SectorChecksumFiles() => Numbered(SectorChecksumBasePath);

    /// <summary>Lists the spare segment files that exist now (<see cref="SpareSegmentBasePath"/>).</summary>
    public IReadOnlyList<LogSegmentFile> SpareSegments() => Numbered(SpareSegmentBasePath);

    private List<LogSegmentFile> Numbered(string basePath)
    {
        var segments = new List<LogSegmentFile>();
        if (!System.IO.Directory.Exists(Directory))
        {
            return segments;
        }

        string pattern = Path.GetFileName(basePath) + ".";
        foreach (FileInfo file in new DirectoryInfo(Directory).EnumerateFiles(pattern + "*"))
        {
            long number = ParseSegment(file.Name, pattern);
            if (number >= 0 && TryGetLength(file, out long length))
            {
                segments.Add(new LogSegmentFile(file.FullName, number, length));
            }
        }

        segments.Sort((a, b) => a.Number.CompareTo(b.Number));
        return segments;
    }

    private static bool TryGetLength(FileInfo file, out long length)
    {
        try
        {
            length = file.Length;
            return true;
        }
        catch (FileNotFoundException)
        {
            length = 0;
            return false;
        }
    }

    // The enumeration pattern is only a pre-filter: .NET's wildcard matching also lets "p.log.*" match "p.log".
    private static long ParseSegment(string fileName, string pattern) =>
        fileName.Length > pattern.Length
        && fileName.StartsWith(pattern, StringComparison.Ordinal)
        && long.TryParse(fileName.AsSpan(pattern.Length), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out long segment)
            ? segment
            : -1;
}
