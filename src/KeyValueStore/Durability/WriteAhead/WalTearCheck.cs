using System;
using System.Buffers.Binary;
using System.IO;
using Microsoft.Win32.SafeHandles;

namespace KeyValueStore.Durability;

/// <summary>
/// Decides whether a damaged entry found after the write-ahead log's newest commit metadata can be what a crash leaves
/// (a flush torn, its writes never acknowledged, so the log may end there) or must be damage to entries that were
/// durable (so the store must refuse to open rather than drop acknowledged writes).
/// </summary>
/// <remarks>
/// Two facts make a tear recognisable:
/// <list type="bullet">
/// <item>A torn flush loses whole 512-byte sectors, and a lost sector keeps what it held before: zeros, where the
/// flush's entries go (segments are preallocated, and bytes past the committed end are cleared on every open). So a torn
/// entry has a sector whose part of the entry is all zeros. An entry that fails its checksum with every sector of it
/// holding data was damaged some other way.</item>
/// <item>Commits run one at a time (<see cref="WriteAheadLog"/>): a commit starts only once the previous one is
/// durable. A commit record on disk therefore proves the commit before it completed. With two intact commit records
/// after the damage, the first commit covers the damage and completed, so the damaged bytes had been written whole.</item>
/// </list>
/// What remains indistinguishable is a whole sector zeroed inside the last commit before a crash: exactly what a power
/// cut during that commit leaves. The log then ends before it, as it must for a tear.
/// </remarks>
internal static class WalTearCheck
{
    private const int SectorSize = 512;

    /// <summary>
    /// Explains why <paramref name="damage"/> cannot be a torn flush, or returns null when it can be.
    /// </summary>
    /// <param name="segmentPath">The path of a log segment file, by segment number.</param>
    /// <param name="segmentSizeBits">The log's segment size.</param>
    /// <param name="pageSizeBits">The log's page size.</param>
    /// <param name="damage">What was found, and where.</param>
    public static string? WhyNotTorn(Func<long, string> segmentPath, int segmentSizeBits, int pageSizeBits, WalDamage damage)
    {
        if (damage.EntryFailedChecksum && !HasZeroedSector(segmentPath, segmentSizeBits, pageSizeBits, damage.DamagedAt))
        {
            return "it fails its checksum with every sector of it written, which a crash's torn write cannot leave";
        }

        if (CountCommitRecordsFrom(segmentPath, segmentSizeBits, pageSizeBits, PastCommitRecords(segmentPath, segmentSizeBits, pageSizeBits, damage.DamagedAt), enough: 2) >= 2)
        {
            return "two commits recorded after it show it was written whole before the crash";
        }

        return null;
    }

    /// <summary>
    /// Steps over the intact commit records at <paramref name="address"/>. FASTER's scan steps over commit records
    /// without returning them, so damage placed at the end of the last entry it returned may begin with commit records
    /// that lie before the damage, not after it: counted as after it, a commit that completed just before a torn flush
    /// made the tear look like damage (the power-cut soak found this).
    /// </summary>
    private static long PastCommitRecords(Func<long, string> segmentPath, int segmentSizeBits, int pageSizeBits, long address)
    {
        long pageEnd = ((address >> pageSizeBits) + 1) << pageSizeBits;
        while (address + WalFraming.CommitRecordSize <= pageEnd
            && WalFraming.IsCommitRecord(Read(segmentPath, segmentSizeBits, address, WalFraming.CommitRecordSize), address))
        {
            address += WalFraming.CommitRecordSize;
        }

        return address;
    }

    /// <summary>
    /// Walks the entries from <paramref name="from"/> (FASTER's committed end, where its recovery stopped) to the end of
    /// the log's data, and returns the first that is not intact: one failing its checksum or framing, or a zero header
    /// with data after it on its page (the padding at a page's end is zeros to the page's end, and is stepped over).
    /// Null when everything there is intact: entries flushed but never committed, which the log may drop.
    /// </summary>
    public static WalDamage? FirstDamagedFrom(Func<long, string> segmentPath, int segmentSizeBits, int pageSizeBits, long from)
    {
        long pageSize = 1L << pageSizeBits;
        long address = from;
        while (File.Exists(segmentPath(address >> segmentSizeBits)))
        {
            long pageStart = (address >> pageSizeBits) << pageSizeBits;
            byte[] page = Read(segmentPath, segmentSizeBits, pageStart, (int)pageSize);
            int offset = (int)(address - pageStart);
            while (offset + WalFraming.HeaderSize <= page.Length)
            {
                int length = WalFraming.ReadLength(page.AsSpan(offset));
                if (length == 0)
                {
                    if (page.AsSpan(offset).IndexOfAnyExcept((byte)0) >= 0)
                    {
                        return new WalDamage(pageStart + offset, pageStart + offset, EntryFailedChecksum: false);
                    }

                    break;
                }

                long size = WalFraming.HeaderSize + ((Math.Abs((long)length) + 3) & ~3L);
                if (offset + size > page.Length || !IsIntact(page.AsSpan(offset, (int)size), length, pageStart + offset))
                {
                    return WalDamage.Entry(pageStart + offset);
                }

                offset += (int)size;
            }

            address = pageStart + pageSize;
        }

        return null;
    }

    private static bool IsIntact(ReadOnlySpan<byte> entry, int length, long address)
    {
        if (length < 0)
        {
            return entry.Length == WalFraming.CommitRecordSize && WalFraming.IsCommitRecord(entry, address);
        }

        try
        {
            WalFragment.ReadHeader(entry.Slice(WalFraming.HeaderSize, length));
            return true;
        }
        catch (FormatException)
        {
            return false;
        }
    }

    /// <summary>Whether some 512-byte sector of the entry at <paramref name="address"/> holds only zeros where the entry lies.</summary>
    private static bool HasZeroedSector(Func<long, string> segmentPath, int segmentSizeBits, int pageSizeBits, long address)
    {
        long pageEnd = ((address >> pageSizeBits) + 1) << pageSizeBits;
        byte[] header = Read(segmentPath, segmentSizeBits, address, WalFraming.HeaderSize);
        int length = BinaryPrimitives.ReadInt32LittleEndian(header.AsSpan(8));
        if (length == 0 || length == int.MinValue)
        {
            return true;
        }

        // Padding after the body is zeros by design: only the header and body count.
        long end = Math.Min(address + WalFraming.HeaderSize + Math.Abs(length), pageEnd);
        byte[] entry = Read(segmentPath, segmentSizeBits, address, (int)(end - address));
        for (long sector = address & ~(SectorSize - 1L); sector < end; sector += SectorSize)
        {
            long from = Math.Max(sector, address);
            long until = Math.Min(sector + SectorSize, end);
            if (entry.AsSpan((int)(from - address), (int)(until - from)).IndexOfAnyExcept((byte)0) < 0)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// Counts the intact commit records this log wrote from <paramref name="from"/> to the end of its files, up to
    /// <paramref name="enough"/>. The bytes after damage cannot be walked entry by entry (a damaged length loses the
    /// framing), so each 4-byte-aligned position is tested for a commit record: its length, its version, the address
    /// after itself that it records, and its cookie's own checksum (<see cref="WalCommitCookie"/>).
    /// </summary>
    private static int CountCommitRecordsFrom(Func<long, string> segmentPath, int segmentSizeBits, int pageSizeBits, long from, int enough)
    {
        int found = 0;
        long pageSize = 1L << pageSizeBits;
        for (long page = from >> pageSizeBits; ; page++)
        {
            string path = segmentPath((page << pageSizeBits) >> segmentSizeBits);
            if (!File.Exists(path))
            {
                return found;
            }

            long pageStart = page << pageSizeBits;
            byte[] bytes = Read(segmentPath, segmentSizeBits, pageStart, (int)pageSize);
            int start = (int)Math.Max(0, (from - pageStart + 3) & ~3L);
            for (int offset = start; offset + WalFraming.CommitRecordSize <= bytes.Length; offset += 4)
            {
                if (WalFraming.IsCommitRecord(bytes.AsSpan(offset, WalFraming.CommitRecordSize), pageStart + offset) && ++found >= enough)
                {
                    return found;
                }
            }
        }
    }

    /// <summary>Reads <paramref name="length"/> bytes at <paramref name="address"/> (within one segment); bytes past the file's end read as zeros.</summary>
    private static byte[] Read(Func<long, string> segmentPath, int segmentSizeBits, long address, int length)
    {
        byte[] bytes = new byte[length];
        string path = segmentPath(address >> segmentSizeBits);
        if (File.Exists(path))
        {
            using SafeFileHandle file = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            int total = 0;
            long offset = address & ((1L << segmentSizeBits) - 1);
            while (total < length)
            {
                int read = RandomAccess.Read(file, bytes.AsSpan(total), offset + total);
                if (read == 0)
                {
                    break;
                }

                total += read;
            }
        }

        return bytes;
    }
}
