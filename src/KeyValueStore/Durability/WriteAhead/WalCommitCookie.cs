using System;
using System.Buffers.Binary;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// What a commit of the write-ahead log covers, in sequence numbers (<see cref="WalFragment"/>): the entries from
/// <paramref name="BeginSequence"/>, the first at the log's begin address, to <paramref name="LastSequence"/>, the last
/// before the commit; <see cref="None"/> when there are none yet. Stored as the commit's cookie, so recovery learns how
/// many entries the log holds, whatever FASTER's scan of them skips.
/// </summary>
/// <remarks>
/// FASTER stores the cookie in the commit record and the commit metadata, outside FASTER's checksum of the metadata, so
/// it carries its own: magic "KVWS" (4 bytes), format 1 (4), the begin sequence (8), the last sequence (8), CRC-32C of
/// those (4).
/// </remarks>
/// <param name="BeginSequence">The sequence number of the first entry at or after the log's begin address.</param>
/// <param name="LastSequence">The sequence number of the last entry the commit covers; <paramref name="BeginSequence"/> - 1 when it covers none.</param>
internal readonly record struct WalCommitCookie(long BeginSequence, long LastSequence)
{
    private const uint Magic = 0x5357564B; // "KVWS", little-endian
    private const int Format = 1;
    /// <summary>The cookie's size in bytes.</summary>
    public const int Size = 28;

    /// <summary>Gets the cookie of a log that has no entries yet.</summary>
    public static WalCommitCookie None { get; } = new(0, -1);

    /// <summary>Gets the sequence number the next entry appended gets.</summary>
    public long NextSequence => LastSequence + 1;

    public byte[] ToBytes()
    {
        byte[] cookie = new byte[Size];
        BinaryPrimitives.WriteUInt32LittleEndian(cookie, Magic);
        BinaryPrimitives.WriteInt32LittleEndian(cookie.AsSpan(4), Format);
        BinaryPrimitives.WriteInt64LittleEndian(cookie.AsSpan(8), BeginSequence);
        BinaryPrimitives.WriteInt64LittleEndian(cookie.AsSpan(16), LastSequence);
        BinaryPrimitives.WriteUInt32LittleEndian(cookie.AsSpan(24), Crc32C.Compute(cookie.AsSpan(0, 24), 0));
        return cookie;
    }

    /// <summary>Reads a recovered cookie; <see cref="None"/> when there is none (a new log, whose only commit is its start).</summary>
    /// <exception cref="FormatException">The cookie is not one this type wrote, or is damaged.</exception>
    public static WalCommitCookie Read(byte[]? cookie)
    {
        if (cookie is null || cookie.Length == 0)
        {
            return None;
        }

        if (cookie.Length != Size
            || BinaryPrimitives.ReadUInt32LittleEndian(cookie) != Magic
            || BinaryPrimitives.ReadInt32LittleEndian(cookie.AsSpan(4)) != Format
            || BinaryPrimitives.ReadUInt32LittleEndian(cookie.AsSpan(24)) != Crc32C.Compute(cookie.AsSpan(0, 24), 0))
        {
            throw new FormatException($"its commit's sequence numbers ({cookie.Length} bytes) are damaged or of an unknown format");
        }

        var read = new WalCommitCookie(BinaryPrimitives.ReadInt64LittleEndian(cookie.AsSpan(8)), BinaryPrimitives.ReadInt64LittleEndian(cookie.AsSpan(16)));
        if (read.BeginSequence < 0 || read.LastSequence < read.BeginSequence - 1)
        {
            throw new FormatException($"its commit covers sequence numbers {read.BeginSequence} to {read.LastSequence}, which is no range");
        }

        return read;
    }
}
