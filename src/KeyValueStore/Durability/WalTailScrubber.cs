using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;

namespace KeyValueStore.Durability;

/// <summary>
/// Clears what a crash left in the write-ahead log's files after its committed end, before the log appends there again.
/// </summary>
/// <remarks>
/// FASTER's fast-commit recovery finds the committed end by scanning forward from the last metadata for commit records,
/// and stops at the first entry that fails its checksum. After a crash the files can hold, past that end, entries that
/// were flushed but never committed, commit records among them (flushes complete out of order). The reopened log appends
/// from the committed end over them. If its newer entries end exactly where one of the stale entries begins (entries of
/// equal size make that likely), the next recovery's scan runs on into the stale entries and commit records, and replay
/// would apply writes nobody acknowledged after newer ones that were: old values over new. So on every open, before
/// anything is appended, the bytes after the committed end in its segment are zeroed and later segments deleted.
/// Reading the rest of a segment is cheap (unwritten parts of a preallocated file are holes); writing happens only where
/// a crash left bytes.
/// </remarks>
internal static class WalTailScrubber
{
    private const int ChunkSize = 1 << 20;

    /// <summary>Gets whether anything but zeros lies after <paramref name="committedUntil"/> in the log's segment files.</summary>
    public static bool HasBytesAfter(string directory, string segmentBaseName, int segmentSizeBits, long committedUntil)
    {
        (long segment, long offset) = Locate(segmentSizeBits, committedUntil);
        if (LaterSegments(directory, segmentBaseName, segment).Count > 0)
        {
            return true;
        }

        string path = SegmentPath(directory, segmentBaseName, segment);
        return File.Exists(path) && FirstNonZeroChunk(path, offset) >= 0;
    }

    /// <summary>Zeroes everything after <paramref name="committedUntil"/> in its segment and deletes later segments. The log must be closed.</summary>
    public static void Scrub(string directory, string segmentBaseName, int segmentSizeBits, long committedUntil)
    {
        (long segment, long offset) = Locate(segmentSizeBits, committedUntil);
        string path = SegmentPath(directory, segmentBaseName, segment);
        if (File.Exists(path))
        {
            using var file = File.OpenHandle(path, FileMode.Open, FileAccess.ReadWrite, FileShare.None, FileOptions.WriteThrough);
            byte[] chunk = new byte[ChunkSize];
            byte[] zeros = new byte[ChunkSize];
            long length = RandomAccess.GetLength(file);
            for (long position = offset; position < length; position += ChunkSize)
            {
                int read = RandomAccess.Read(file, chunk, position);
                if (chunk.AsSpan(0, read).IndexOfAnyExcept((byte)0) >= 0)
                {
                    RandomAccess.Write(file, zeros.AsSpan(0, read), position);
                }
            }
        }

        foreach (string later in LaterSegments(directory, segmentBaseName, segment))
        {
            File.Delete(later);
        }
    }

    private static (long Segment, long Offset) Locate(int segmentSizeBits, long address) =>
        (address >> segmentSizeBits, address & ((1L << segmentSizeBits) - 1));

    private static string SegmentPath(string directory, string segmentBaseName, long segment) =>
        Path.Combine(directory, $"{segmentBaseName}.{segment.ToString(CultureInfo.InvariantCulture)}");

    private static List<string> LaterSegments(string directory, string segmentBaseName, long segment)
    {
        var later = new List<string>();
        string prefix = segmentBaseName + ".";
        foreach (string path in Directory.EnumerateFiles(directory, prefix + "*"))
        {
            string name = Path.GetFileName(path);
            if (long.TryParse(name.AsSpan(prefix.Length), NumberStyles.None, CultureInfo.InvariantCulture, out long number) && number > segment)
            {
                later.Add(path);
            }
        }

        return later;
    }

    private static long FirstNonZeroChunk(string path, long offset)
    {
        using var file = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        byte[] chunk = new byte[ChunkSize];
        long length = RandomAccess.GetLength(file);
        for (long position = offset; position < length; position += ChunkSize)
        {
            int read = RandomAccess.Read(file, chunk, position);
            if (chunk.AsSpan(0, read).IndexOfAnyExcept((byte)0) >= 0)
            {
                return position;
            }
        }

        return -1;
    }
}
