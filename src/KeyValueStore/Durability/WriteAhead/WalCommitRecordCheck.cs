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
/// <remarks>The framing is <see cref="WalFraming"/>'s; this check reads any commit record, not only this log's own shape.</remarks>
internal static class WalCommitRecordCheck
{
    // Version, checksum, begin and until: what every version of the record has before anything of variable length.
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

        long start = Math.Max(((until - 1) >> pageSizeBits) << pageSizeBits, WalFraming.FirstAddress);
        byte[] page = new byte[until - start];
        string path = segmentPath(start >> segmentSizeBits);
        if (File.Exists(path))
        {
            using SafeFileHandle file = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            RandomAccess.Read(file, page, start & ((1L << segmentSizeBits) - 1));
        }

        int offset = 0;
        while (offset + WalFraming.HeaderSize <= page.Length)
        {
            int length = WalFraming.ReadLength(page.AsSpan(offset));
            if (length == 0)
            {
                return null;
            }

            long body = Math.Abs((long)length);
            long size = WalFraming.HeaderSize + ((body + 3) & ~3L);
            if (offset + size > page.Length)
            {
                // FASTER refuses a length that runs off its page (a FasterException), and nothing past it is parsed.
                return null;
            }

            if (length < 0 && start + offset >= from && !IsSafe(page.AsSpan(offset + WalFraming.HeaderSize, (int)body)))
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
