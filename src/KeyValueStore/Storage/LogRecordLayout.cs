using System;
using System.Buffers.Binary;

namespace KeyValueStore.Storage;

/// <summary>
/// How FASTER 2.6.5 lays out a <c>SpanByte</c> record in the hybrid log, for the store's own readers of log bytes (the
/// recovery check, the live estimate's windows): an 8-byte header (<c>RecordInfo</c>; all zeros where there is no
/// record), the key (a 4-byte length, then its bytes, padded to 8), the value (a 4-byte length, then its bytes), the
/// whole padded to 8. A record never crosses a page boundary.
/// </summary>
/// <remarks>
/// The header holds the previous address in its low 48 bits, then 7 lock bits, then the tombstone, valid and sealed
/// bits. The two top bits of a length are <c>SpanByte</c> flags, which no record in the log has: a record is always
/// serialized in place, and this store writes no metadata. Pinned to FASTER 2.6.5: a FASTER upgrade must check these.
/// </remarks>
internal static class LogRecordLayout
{
    /// <summary>The header's size: FASTER's <c>RecordInfo</c>.</summary>
    public const int HeaderBytes = 8;

    /// <summary>The size of a key's or a value's length.</summary>
    public const int LengthBytes = 4;

    /// <summary>What records, and the key inside one, are padded to.</summary>
    public const int Alignment = 8;

    /// <summary>The <c>SpanByte</c> flag bits of a length.</summary>
    public const int LengthFlagsMask = 0x3 << 30;

    /// <summary>The header bit of a delete.</summary>
    public const long TombstoneBit = 1L << 55;

    /// <summary>The header bit of a record FASTER counts as written: a scan skips one without it.</summary>
    public const long ValidBit = 1L << 56;

    /// <summary>The header bit of a record FASTER sealed, superseded in place: a scan skips it.</summary>
    public const long SealedBit = 1L << 57;

    /// <summary>The header bits of the previous address in the key's hash chain.</summary>
    public const long PreviousAddressMask = (1L << 48) - 1;

    /// <summary>What <see cref="RecordSize"/> returns when a length lies past the bytes given.</summary>
    public const int Truncated = -1;

    /// <summary>What <see cref="RecordSize"/> returns when a length carries a <c>SpanByte</c> flag: damage.</summary>
    public const int Flagged = -2;

    /// <summary>Reads the header at the start of <paramref name="record"/>.</summary>
    public static long Header(ReadOnlySpan<byte> record) => BinaryPrimitives.ReadInt64LittleEndian(record);

    /// <summary>Whether FASTER's scan passes over a record with <paramref name="header"/>: no record, not valid, or sealed.</summary>
    public static bool IsSkippedByScan(long header) => (header & (ValidBit | SealedBit)) != ValidBit;

    /// <summary>
    /// The aligned size of the record starting <paramref name="record"/>, read from its two lengths (the value's bytes
    /// need not be there); <see cref="Truncated"/> when a length lies past the bytes given, <see cref="Flagged"/> when one
    /// carries a flag. The size is not checked against anything: whether it fits its page is the caller's to check.
    /// </summary>
    public static int RecordSize(ReadOnlySpan<byte> record)
    {
        if (HeaderBytes + LengthBytes > record.Length)
        {
            return Truncated;
        }

        int keyLength = BinaryPrimitives.ReadInt32LittleEndian(record[HeaderBytes..]);
        if ((keyLength & LengthFlagsMask) != 0)
        {
            return Flagged;
        }

        long valueLengthAt = HeaderBytes + AlignUp(LengthBytes + (long)keyLength, Alignment);
        if (valueLengthAt + LengthBytes > record.Length)
        {
            return Truncated;
        }

        int valueLength = BinaryPrimitives.ReadInt32LittleEndian(record[(int)valueLengthAt..]);
        if ((valueLength & LengthFlagsMask) != 0)
        {
            return Flagged;
        }

        // At most about 2^31: a size past int's range fits no page, which the caller's check says.
        return (int)Math.Min(AlignUp(valueLengthAt + LengthBytes + valueLength, Alignment), int.MaxValue);
    }

    /// <summary>The key's bytes of a record whose <see cref="RecordSize"/> was read from <paramref name="record"/>.</summary>
    public static ReadOnlySpan<byte> Key(ReadOnlySpan<byte> record) =>
        record.Slice(HeaderBytes + LengthBytes, BinaryPrimitives.ReadInt32LittleEndian(record[HeaderBytes..]));

    /// <summary>Where the value's length lies in a record whose <see cref="RecordSize"/> was read: past the header and the padded key.</summary>
    public static int ValueLengthOffset(ReadOnlySpan<byte> record) =>
        HeaderBytes + (int)AlignUp(LengthBytes + (long)BinaryPrimitives.ReadInt32LittleEndian(record[HeaderBytes..]), Alignment);

    /// <summary>Rounds <paramref name="value"/> up to a multiple of <paramref name="alignment"/>, a power of two.</summary>
    public static long AlignUp(long value, long alignment) => (value + alignment - 1) & ~(alignment - 1);
}
