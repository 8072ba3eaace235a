using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using Microsoft.Win32.SafeHandles;

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
    public static bool HasBytesAfter(string directory, int segmentSizeBits, long committedUntil)
    {
        (long segment, long offset) = Locate(segmentSizeBits, committedUntil);
        if (LaterSegments(directory, segment).Count > 0)
        {
            return true;
        }

        string path = WriteAheadLog.SegmentPath(directory, segment);
        if (!File.Exists(path))
        {
            return false;
        }

        using SafeFileHandle file = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        return NonZeroChunks(file, offset).Any();
    }

    /// <summary>Zeroes everything after <paramref name="committedUntil"/> in its segment and deletes later segments. The log must be closed.</summary>
    public static void Scrub(string directory, int segmentSizeBits, long committedUntil)
    {
        (long segment, long offset) = Locate(segmentSizeBits, committedUntil);
        string path = WriteAheadLog.SegmentPath(directory, segment);
        if (File.Exists(path))
        {
            using SafeFileHandle file = File.OpenHandle(path, FileMode.Open, FileAccess.ReadWrite, FileShare.None, FileOptions.WriteThrough);
            byte[] zeros = new byte[ChunkSize];
            foreach ((long position, int length) in NonZeroChunks(file, offset).ToList())
            {
                RandomAccess.Write(file, zeros.AsSpan(0, length), position);
            }
        }

        foreach (string later in LaterSegments(directory, segment))
        {
            File.Delete(later);
        }
    }

    private static (long Segment, long Offset) Locate(int segmentSizeBits, long address) =>
        (address >> segmentSizeBits, address & ((1L << segmentSizeBits) - 1));

    /// <summary>The chunks of <paramref name="file"/> from <paramref name="offset"/> to its end that hold a byte other than zero.</summary>
    private static IEnumerable<(long Position, int Length)> NonZeroChunks(SafeFileHandle file, long offset)
    {
        byte[] chunk = new byte[ChunkSize];
        long length = RandomAccess.GetLength(file);
        for (long position = offset; position < length; position += ChunkSize)
        {
            int read = RandomAccess.Read(file, chunk, position);
            if (chunk.AsSpan(0, read).IndexOfAnyExcept((byte)0) >= 0)
            {
                yield return (position, read);
            }
        }
    }

    private static List<string> LaterSegments(string directory, long segment)
    {
        var later = new List<string>();
        string prefix = WriteAheadLog.SegmentBaseName + ".";
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
}
