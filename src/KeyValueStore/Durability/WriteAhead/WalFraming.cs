using System;
using System.Buffers.Binary;

namespace KeyValueStore.Durability;

/// <summary>
/// How FASTER 2.6.5 frames the write-ahead log's entries on disk, for the checks that read the log's files directly
/// (<see cref="WalCommitRecordCheck"/>, <see cref="WalTearCheck"/>) before FASTER parses them.
/// </summary>
/// <remarks>
/// With a checksum per entry, each entry is an 8-byte checksum, a 4-byte length (negative for a commit record), then the
/// body, padded to 4 bytes; a zero length ends the page. A commit record's body: version (4), checksum (8), begin and
/// until addresses (8 each; until is the address after the record itself), the commit number (8, from version 1), the
/// count of named iterators (4; this log has none), the cookie's length (4; -1 for none) and the cookie, which this log
/// always gives (<see cref="WalCommitCookie"/>).
/// </remarks>
internal static class WalFraming
{
    /// <summary>The checksum and length in front of every entry.</summary>
    public const int HeaderSize = 12;

    /// <summary>The address of the log's first entry: FASTER leaves the first 64 bytes unused.</summary>
    public const int FirstAddress = 64;

    /// <summary>A commit record's body up to the iterator count: version, checksum, begin, until, commit number.</summary>
    public const int CommitFieldsSize = 4 + 8 + 8 + 8 + 8;

    /// <summary>The body of a commit record this log writes: the fields, no iterators, and a <see cref="WalCommitCookie"/>.</summary>
    public const int CommitBodySize = CommitFieldsSize + 4 + 4 + WalCommitCookie.Size;

    /// <summary>A whole commit record as this log writes it (its body needs no padding).</summary>
    public const int CommitRecordSize = HeaderSize + CommitBodySize;

    /// <summary>Reads the length field of the entry whose header starts <paramref name="header"/>.</summary>
    public static int ReadLength(ReadOnlySpan<byte> header) => BinaryPrimitives.ReadInt32LittleEndian(header[8..]);

    /// <summary>
    /// Whether <paramref name="record"/> (<see cref="CommitRecordSize"/> bytes read at <paramref name="address"/>) is an
    /// intact commit record this log wrote: its length, version, the until address pointing just past itself, and a
    /// cookie whose own checksum holds.
    /// </summary>
    public static bool IsCommitRecord(ReadOnlySpan<byte> record, long address)
    {
        if (ReadLength(record) != -CommitBodySize)
        {
            return false;
        }

        ReadOnlySpan<byte> body = record[HeaderSize..];
        if (BinaryPrimitives.ReadInt32LittleEndian(body) != 1
            || BinaryPrimitives.ReadInt64LittleEndian(body[20..]) != address + CommitRecordSize
            || BinaryPrimitives.ReadInt32LittleEndian(body[CommitFieldsSize..]) != 0
            || BinaryPrimitives.ReadInt32LittleEndian(body[(CommitFieldsSize + 4)..]) != WalCommitCookie.Size)
        {
            return false;
        }

        try
        {
            WalCommitCookie.Read(body[(CommitFieldsSize + 8)..].ToArray());
            return true;
        }
        catch (FormatException)
        {
            return false;
        }
    }
}
