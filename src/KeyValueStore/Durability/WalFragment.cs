using System;
using System.Buffers.Binary;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// One entry of the write-ahead log: a 16-byte header, then a transaction's bytes (<see cref="WalTransaction"/>) or a
/// piece of them. A transaction larger than <see cref="WriteAheadLog.MaxFragmentPayload"/> (a big batch) is logged as
/// a first piece, middle pieces and a last piece, each naming the log address of the first.
/// </summary>
/// <remarks>
/// Header: kind (1 byte: 0 whole, 1 first, 2 middle, 3 last), 3 zero bytes, CRC-32C of the payload (4 bytes), then the
/// first piece's address (8 bytes; 0 in a whole transaction or a first piece), little-endian. The CRC is ours because
/// FASTER checks its own per-entry checksum only on pages it reads from disk, and after recovery the log's last page is
/// read into memory, where a scan trusts it. Pieces of other transactions may come between the pieces
/// of one; replay applies a transaction at its last piece, which is right because the writer held the stripes of all its
/// keys from its first piece to its last, so no write of those keys lies between them.
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
    public const int HeaderSize = 16;

    /// <summary>Writes the header in front of the payload already at <paramref name="entry"/>[<see cref="HeaderSize"/>..<paramref name="length"/>].</summary>
    public static void WriteHeader(Span<byte> entry, int length, WalFragmentKind kind, long firstAddress)
    {
        entry[..HeaderSize].Clear();
        entry[0] = (byte)kind;
        BinaryPrimitives.WriteUInt32LittleEndian(entry[4..], Crc32C.Compute(entry[HeaderSize..length], 0));
        BinaryPrimitives.WriteInt64LittleEndian(entry[8..], firstAddress);
    }

    /// <summary>Reads and checks an entry's header.</summary>
    /// <exception cref="FormatException">The header is not valid, or the payload fails its CRC.</exception>
    public static (WalFragmentKind Kind, long FirstAddress) ReadHeader(ReadOnlySpan<byte> entry)
    {
        if (entry.Length < HeaderSize || entry[0] > (byte)WalFragmentKind.Last || entry[1..4].IndexOfAnyExcept((byte)0) >= 0)
        {
            throw new FormatException($"an entry of {entry.Length} bytes has no valid header");
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(entry[4..]) != Crc32C.Compute(entry[HeaderSize..], 0))
        {
            throw new FormatException($"an entry of {entry.Length} bytes fails its checksum");
        }

        return ((WalFragmentKind)entry[0], BinaryPrimitives.ReadInt64LittleEndian(entry[8..]));
    }
}
