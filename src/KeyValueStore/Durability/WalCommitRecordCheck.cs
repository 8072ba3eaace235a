using System;
using System.Buffers.Binary;
using System.IO;
using Microsoft.Win32.SafeHandles;

namespace KeyValueStore.Durability;

/// <summary>
/// Checks the commit records on the write-ahead log's last page, the one FASTER's recovery leaves in memory, before a
/// scan parses them: FASTER 2.6.5 checks an entry's checksum only on pages it reads from disk, and its parser of a commit
/// record trusts the cookie length it reads, checksumming that many bytes of a shorter array. One flipped bit there
/// killed the process with an <c>AccessViolationException</c>, which .NET cannot catch (the corruption soak found it).
/// </summary>
/// <remarks>
/// FASTER's framing with per-entry checksums: an 8-byte checksum, a 4-byte length (negative for a commit record), then
/// the body, padded to 4 bytes; a zero length ends the page. A commit record's body: version (4), checksum (8), begin
/// and until addresses (8 each), the commit number (8, from version 1), the count of named iterators (4; this log has
/// none), the cookie's length (4; -1 for none) and the cookie.
/// </remarks>
internal static class WalCommitRecordCheck
{
    private const int FasterHeaderSize = 12;
    private const int FirstAddress = 64;
    private const int FixedBodyBytes = 4 + 8 + 8 + 8;

    /// <summary>
    /// The address of the first commit record between <paramref name="from"/> and <paramref name="until"/> on the page
    /// holding <paramref name="until"/>'s last byte that FASTER could not parse safely; null when there is none.
    /// </summary>
    /// <param name="segmentPath">The path of a log segment file, by segment number.</param>
    /// <param name="segmentSizeBits">The log's segment size.</param>
    /// <param name="pageSizeBits">The log's page size.</param>
    /// <param name="from">Where the caller's scan starts.</param>
    /// <param name="until">The log's committed end.</param>
    public static long? FirstUnsafe(Func<long, string> segmentPath, int segmentSizeBits, int pageSizeBits, long from, long until)
    {
        if (until <= from)
        {
            return null;
        }

        long start = Math.Max(((until - 1) >> pageSizeBits) << pageSizeBits, FirstAddress);
        byte[] page = new byte[until - start];
        string path = segmentPath(start >> segmentSizeBits);
        if (File.Exists(path))
        {
            using SafeFileHandle file = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            RandomAccess.Read(file, page, start & ((1L << segmentSizeBits) - 1));
        }

        int offset = 0;
        while (offset + FasterHeaderSize <= page.Length)
        {
            int length = BinaryPrimitives.ReadInt32LittleEndian(page.AsSpan(offset + 8));
            if (length == 0)
            {
                return null;
            }

            long body = Math.Abs((long)length);
            long size = FasterHeaderSize + ((body + 3) & ~3L);
            if (offset + size > page.Length)
            {
                // FASTER refuses a length that runs off its page (a FasterException), and nothing past it is parsed.
                return null;
            }

            if (length < 0 && start + offset >= from && !IsSafe(page.AsSpan(offset + FasterHeaderSize, (int)body)))
            {
                return start + offset;
            }

            offset += (int)size;
        }

        return null;
    }

    private static bool IsSafe(ReadOnlySpan<byte> body)
    {
        if (body.Length < FixedBodyBytes)
        {
            return true; // FASTER's reader runs out of bytes and throws, which a scan reports as damage.
        }

        int version = BinaryPrimitives.ReadInt32LittleEndian(body);
        if (version is < 0 or > 1)
        {
            return true; // refused by version before anything else is read
        }

        int at = FixedBodyBytes + (version > 0 ? 8 : 0);
        if (at + 4 > body.Length)
        {
            return true;
        }

        // Named iterators: each is a length and that many bytes, allocated before they are read.
        if (BinaryPrimitives.ReadInt32LittleEndian(body[at..]) != 0)
        {
            return false;
        }

        at += 4;
        if (version < 1 || at + 4 > body.Length)
        {
            return true;
        }

        int cookieLength = BinaryPrimitives.ReadInt32LittleEndian(body[(at)..]);
        return cookieLength <= body.Length - (at + 4);
    }
}
