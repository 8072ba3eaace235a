using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// Walks the record headers of the log a checkpoint needs, page by page, the way FASTER's recovery will, and refuses
/// the store with a <see cref="StoreFileCorruptedException"/> where a header would send that walk outside its page.
/// </summary>
/// <remarks>
/// FASTER 2.6.5's recovery trusts every key and value length it reads: a damaged one makes it read outside the page
/// buffer, and the process dies of an <c>AccessViolationException</c>, which .NET cannot catch. Reading the log once
/// more before FASTER does is the price of "a damaged file gets an exception naming it, never a crash".
/// <para>
/// The walk starts at each page's first byte. On the page holding the checkpoint's begin address it must pass through
/// that address exactly: a begin address inside a record is what a torn compaction left behind before the compactor
/// rounded to pages. The last page is read as recovery reads it: up to the final address rounded up to a sector,
/// zeros after, and walked to its end, as FASTER does when it clears record locks.
/// </para>
/// <para>
/// Every sector the checkpoint holds is checked against the checksum taken when it was written
/// (<see cref="SectorChecksums"/>), the sector holding the tail up to the tail only. That catches what the record layout
/// cannot show: zeroed bytes (FASTER reads them as empty space, and leaves zeroed gaps inside pages itself, so zeros
/// alone cannot be told from damage) and a flipped valid bit (FASTER skips invalid records, and leaves some behind on
/// purpose).
/// </para>
/// With <c>ValueChecksums</c> on, every valid record's seal is checked too (<see cref="ValueChecksum.Check"/>): a live
/// record's must match its key and value, a tombstone's must be inverted (or the tombstone has no value). That names the
/// damaged record, and holds for a record whose sector checksum was damaged along with it.
/// </remarks>
internal static class RecordChainCheck
{
    private const int SectorBytes = 512;

    // Bits FASTER sets and clears on a record after it was written to disk, so the same record can be written again
    // with other values there: the 7 lock bits, Sealed, Dirty (cleared once a page is flushed; seen in the crash tests)
    // and Modified. The previous address, the tombstone, valid and in-new-version bits never change once written.
    private const long VolatileHeaderBits = (0x7FL << 48) | (1L << 57) | (1L << 59) | (1L << 62);

    /// <summary>Walks and checks the log <paramref name="point"/> needs.</summary>
    /// <param name="point">The checkpoint to be recovered.</param>
    /// <param name="layout">The store's files.</param>
    /// <param name="pageSizeBits">The log's page size.</param>
    /// <param name="segmentSizeBits">The log's segment size.</param>
    /// <param name="valueChecksums">Whether records carry seals to check.</param>
    /// <param name="tailSector">The tail sector's bytes before the tail, from the checkpoint record; null when the record has none for this checkpoint (the tail is at a sector boundary, or a crash came before the record).</param>
    /// <exception cref="StoreFileCorruptedException">A record or sector is damaged, or a sector checksum file is missing or short.</exception>
    public static void Verify(RecoveryPoint point, LogFileLayout layout, int pageSizeBits, int segmentSizeBits, bool valueChecksums, byte[]? tailSector)
    {
        if (point.FinalLogicalAddress <= point.BeginAddress)
        {
            return;
        }

        int pageSize = 1 << pageSizeBits;
        var page = new byte[pageSize];
        long openSegment = -1;
        FileStream? segment = null;
        SectorChecksumFile? checksums = null;
        try
        {
            for (long pageStart = point.BeginAddress & ~((long)pageSize - 1); pageStart < point.FinalLogicalAddress; pageStart += pageSize)
            {
                // One handle per segment, not per page: a large log has hundreds of thousands of pages.
                if (pageStart >> segmentSizeBits != openSegment)
                {
                    segment?.Dispose();
                    openSegment = pageStart >> segmentSizeBits;
                    segment = new FileStream(layout.SegmentPath(openSegment), FileMode.Open, FileAccess.Read, FileShare.ReadWrite, bufferSize: 1);
                }

                long bytesRecoveryReads = Math.Min(pageSize, LogRecordLayout.AlignUp(point.FinalLogicalAddress - pageStart, SectorBytes));
                ReadPage(segment!, pageStart & ((1L << segmentSizeBits) - 1), page, (int)bytesRecoveryReads);
                // Records first: a seal that fails names the record, which says more than a sector that fails.
                List<int> headers = WalkPage(page, pageStart, point, segment!.Name, segmentSizeBits, valueChecksums);
                CheckSectors(page, pageStart, point, layout, segment!.Name, segmentSizeBits, tailSector, headers, ref checksums);
            }
        }
        finally
        {
            segment?.Dispose();
            checksums?.Dispose();
        }
    }

    private static void ReadPage(FileStream segment, long offset, byte[] page, int length)
    {
        // Only what recovery does not read is zeroed: clearing whole pages of a large log cost as much as reading them.
        segment.Position = offset;
        segment.ReadExactly(page, 0, length);
        Array.Clear(page, length, page.Length - length);
    }

    /// <summary>Checks the page's sectors that hold part of the checkpoint against their recorded checksums.</summary>
    private static void CheckSectors(byte[] page, long pageStart, RecoveryPoint point, LogFileLayout layout, string segmentPath, int segmentSizeBits, byte[]? tailSector, List<int> recordHeaders, ref SectorChecksumFile? checksums)
    {
        long pageEnd = pageStart + page.Length;
        long tailSectorStart = point.FinalLogicalAddress & ~(SectorBytes - 1L);
        long from = Math.Max(pageStart, point.BeginAddress & ~(SectorBytes - 1L));
        long until = Math.Min(pageEnd, tailSectorStart);
        if (until > from)
        {
            int count = (int)((until - from) / SectorBytes);
            long segment = pageStart >> segmentSizeBits;
            if (checksums is null || checksums.Path != layout.SectorChecksumPath(segment))
            {
                // Opened once per segment, like the segment itself, and only where a whole sector needs checking.
                checksums?.Dispose();
                checksums = SectorChecksumFile.Open(layout, segment);
            }

            uint[] expected = checksums.Read((from & ((1L << segmentSizeBits) - 1)) / SectorBytes, count);
            for (int i = 0; i < count; i++)
            {
                long address = from + ((long)i * SectorBytes);
                if (Crc32C.Compute(page.AsSpan((int)(address - pageStart), SectorBytes), 0) != expected[i])
                {
                    throw DamagedSector(segmentPath, address, segmentSizeBits, checksums.Path);
                }
            }
        }

        if (tailSector is not null && tailSector.Length == point.FinalLogicalAddress - tailSectorStart && tailSectorStart >= pageStart && tailSectorStart < pageEnd
            && !SameRecords(page.AsSpan((int)(tailSectorStart - pageStart), tailSector.Length), tailSector, (int)(tailSectorStart - pageStart), recordHeaders))
        {
            throw DamagedSector(segmentPath, tailSectorStart, segmentSizeBits, layout.CheckpointRecordPath);
        }
    }

    /// <summary>
    /// Whether the tail sector on disk holds the bytes recorded at the checkpoint, but for the bits of record headers
    /// that FASTER changes on records already written (<see cref="VolatileHeaderBits"/>).
    /// </summary>
    private static bool SameRecords(ReadOnlySpan<byte> onDisk, ReadOnlySpan<byte> recorded, int sectorOffset, List<int> recordHeaders)
    {
        Span<byte> masked = stackalloc byte[SectorBytes];
        Span<byte> expected = stackalloc byte[SectorBytes];
        onDisk.CopyTo(masked);
        recorded.CopyTo(expected);
        foreach (int header in recordHeaders)
        {
            int at = header - sectorOffset;
            if (at >= 0 && at + LogRecordLayout.HeaderBytes <= recorded.Length)
            {
                Mask(masked[at..]);
                Mask(expected[at..]);
            }
        }

        return masked[..recorded.Length].SequenceEqual(expected[..recorded.Length]);

        static void Mask(Span<byte> header) =>
            BinaryPrimitives.WriteInt64LittleEndian(header, BinaryPrimitives.ReadInt64LittleEndian(header) & ~VolatileHeaderBits);
    }

    private static StoreFileCorruptedException DamagedSector(string segmentPath, long address, int segmentSizeBits, string checksumPath) =>
        new(segmentPath, $"the sector at log address {address} (offset {address & ((1L << segmentSizeBits) - 1)} in this file) does not match the checksum recorded for it when it was written ('{checksumPath}'): one of the two files is damaged");

    /// <summary>Walks the page's records; returns the offsets of the record headers it passed.</summary>
    private static List<int> WalkPage(byte[] page, long pageStart, RecoveryPoint point, string segmentPath, int segmentSizeBits, bool valueChecksums)
    {
        var headers = new List<int>();
        bool beginOnThisPage = point.BeginAddress - pageStart < page.Length;
        int offset = 0;
        while (offset < page.Length)
        {
            long address = pageStart + offset;
            bool empty = BinaryPrimitives.ReadInt64LittleEndian(page.AsSpan(offset)) == 0;
            if (!empty)
            {
                headers.Add(offset);
            }

            int size = empty ? LogRecordLayout.HeaderBytes : LogRecordLayout.RecordSize(page.AsSpan(offset));
            if (size == LogRecordLayout.Flagged)
            {
                throw Damaged(segmentPath, address, segmentSizeBits, "its key or value length has a SpanByte flag bit set, which no record in the log has");
            }

            if (size < 0 || offset + size > page.Length)
            {
                throw Damaged(segmentPath, address, segmentSizeBits, "its key or value length does not fit in its page");
            }

            if (beginOnThisPage && address < point.BeginAddress && address + size > point.BeginAddress)
            {
                throw Damaged(segmentPath, address, segmentSizeBits, $"it runs across the log's begin address {point.BeginAddress}, which must be the start of a record");
            }

            if (valueChecksums && !empty && address >= point.BeginAddress && address < point.FinalLogicalAddress)
            {
                CheckSeal(page, offset, address, segmentPath, segmentSizeBits);
            }

            offset += size;
        }

        return headers;
    }

    /// <summary>Checks that a valid record's seal agrees with its key, its value and its tombstone bit.</summary>
    private static void CheckSeal(byte[] page, int offset, long address, string segmentPath, int segmentSizeBits)
    {
        long header = BinaryPrimitives.ReadInt64LittleEndian(page.AsSpan(offset));
        if ((header & LogRecordLayout.ValidBit) == 0)
        {
            return;
        }

        ReadOnlySpan<byte> record = page.AsSpan(offset);
        int valueLengthAt = LogRecordLayout.ValueLengthOffset(record);
        ReadOnlySpan<byte> key = LogRecordLayout.Key(record);
        ReadOnlySpan<byte> value = record.Slice(valueLengthAt + LogRecordLayout.LengthBytes, BinaryPrimitives.ReadInt32LittleEndian(record[valueLengthAt..]));
        bool tombstone = (header & LogRecordLayout.TombstoneBit) != 0;

        // A tombstone appended by a delete has no value; one a delete set in place keeps the value, with its seal inverted.
        SealState seal = tombstone && value.IsEmpty ? SealState.Deleted : ValueChecksum.Check(key, value);
        if (seal != (tombstone ? SealState.Deleted : SealState.Live))
        {
            string problem = seal == SealState.Damaged
                ? "its key or value does not match its checksum"
                : $"its tombstone bit says {(tombstone ? "deleted" : "live")} but its checksum says {(tombstone ? "live" : "deleted")}";
            throw Damaged(segmentPath, address, segmentSizeBits, problem, "record");
        }
    }

    private static StoreFileCorruptedException Damaged(string segmentPath, long address, int segmentSizeBits, string problem, string what = "record header") =>
        new(segmentPath, $"the {what} at log address {address} (offset {address & ((1L << segmentSizeBits) - 1)} in this file) is damaged: {problem}");
}
