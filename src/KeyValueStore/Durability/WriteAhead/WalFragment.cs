using System;
using System.Buffers.Binary;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// One entry of the write-ahead log: a 24-byte header, then a transaction's bytes (<see cref="WalTransaction"/>) or a
/// piece of them. A transaction larger than <see cref="WriteAheadLog.MaxFragmentPayload"/> (a big batch) is logged as
/// a first piece, middle pieces and a last piece, each naming the log address of the first.
/// </summary>
/// <remarks>
/// Header: kind (1 byte: 0 whole, 1 first, 2 middle, 3 last), 3 zero bytes, CRC-32C (4 bytes), the first piece's address
/// (8 bytes; 0 in a whole transaction or a first piece), the entry's sequence number (8 bytes), little-endian. The CRC
/// is ours because FASTER checks its own per-entry checksum only on pages it reads from disk, and after recovery the
/// log's last page is read into memory, where a scan trusts it. It runs over the payload, then the first piece's
/// address, then the sequence number: a writer computes all but the last 8 bytes of it before it takes the log's append
/// lock, where the sequence number is given out.
/// <para>
/// Sequence numbers are consecutive in log order (<see cref="WriteAheadLog"/> gives them out with the address), so replay
/// sees entries that FASTER's scan skipped without a word: an entry header that reads as zero is taken for the padding
/// at a page's end, and the scan jumps to the next page.
/// </para>
/// <para>
/// Pieces of other transactions may come between the pieces of one; replay applies a transaction at its last piece,
/// which is right because the writer held the stripes of all its keys from its first piece to its last, so no write of
/// those keys lies between them.
/// </para>
/// </remarks>
internal enum WalFragmentKind : byte
{
    Whole = 0,
    First = 1,
    Middle = 2,
    Last = 3,
}

internal static class WalFragment
{
    public const int HeaderSize = 24;
    private const int CrcOffset = 4;
    private const int FirstAddressOffset = 8;
    private const int SequenceOffset = 16;

    /// <summary>
    /// Writes the header, all but the sequence number, in front of the payload already at
    /// <paramref name="entry"/>[<see cref="HeaderSize"/>..<paramref name="length"/>]; returns the CRC so far, for <see cref="Seal"/>.
    /// </summary>
    public static uint WriteHeader(Span<byte> entry, int length, WalFragmentKind kind, long firstAddress)
    {
        entry[..HeaderSize].Clear();
        entry[0] = (byte)kind;
        BinaryPrimitives.WriteInt64LittleEndian(entry[FirstAddressOffset..], firstAddress);
        return Crc32C.Compute(entry[FirstAddressOffset..SequenceOffset], Crc32C.Compute(entry[HeaderSize..length], 0));
    }

    /// <summary>Stamps the sequence number on an entry whose header <see cref="WriteHeader"/> wrote, and its finished CRC.</summary>
    public static void Seal(Span<byte> entry, long sequence, uint partialCrc)
    {
        BinaryPrimitives.WriteInt64LittleEndian(entry[SequenceOffset..], sequence);
        BinaryPrimitives.WriteUInt32LittleEndian(entry[CrcOffset..], Crc32C.Compute(entry[SequenceOffset..HeaderSize], partialCrc));
    }

    /// <summary>Reads and checks an entry's header.</summary>
    /// <exception cref="FormatException">The header is not valid, or the entry fails its CRC.</exception>
    public static (WalFragmentKind Kind, long FirstAddress, long Sequence) ReadHeader(ReadOnlySpan<byte> entry)
    {
        if (entry.Length < HeaderSize || entry[0] > (byte)WalFragmentKind.Last || entry[1..CrcOffset].IndexOfAnyExcept((byte)0) >= 0)
        {
            throw new FormatException($"an entry of {entry.Length} bytes has no valid header");
        }

        uint crc = Crc32C.Compute(entry[SequenceOffset..HeaderSize], Crc32C.Compute(entry[FirstAddressOffset..SequenceOffset], Crc32C.Compute(entry[HeaderSize..], 0)));
        if (BinaryPrimitives.ReadUInt32LittleEndian(entry[CrcOffset..]) != crc)
        {
            throw new FormatException($"an entry of {entry.Length} bytes fails its checksum");
        }

        return ((WalFragmentKind)entry[0], BinaryPrimitives.ReadInt64LittleEndian(entry[FirstAddressOffset..]), BinaryPrimitives.ReadInt64LittleEndian(entry[SequenceOffset..]));
    }
}
