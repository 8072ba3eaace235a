using System;
using System.Buffers.Binary;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// A point in the write-ahead log: the address of <paramref name="Address"/> and the sequence number
/// (<see cref="WalFragment"/>) of the first entry at or after it. A checkpoint stores the position it holds everything
/// before as its commit cookie: recovery restores the checkpoint, then replays the log from here, and the first entry
/// replayed must carry <paramref name="NextSequence"/>.
/// </summary>
/// <remarks>
/// FASTER appends the cookie to the checkpoint's metadata outside the metadata's own checksum, so it carries its own:
/// magic "KVWP" (4 bytes), format 2 (4), the address (8), the sequence number (8), CRC-32C of those (4).
/// </remarks>
/// <param name="Address">The log address.</param>
/// <param name="NextSequence">The sequence number of the first entry at or after <paramref name="Address"/>.</param>
internal readonly record struct WalPosition(long Address, long NextSequence)
{
    private const uint Magic = 0x5057564B; // "KVWP", little-endian
    private const int Format = 2;
    private const int Size = 28;

    public byte[] ToCookie()
    {
        byte[] cookie = new byte[Size];
        BinaryPrimitives.WriteUInt32LittleEndian(cookie, Magic);
        BinaryPrimitives.WriteInt32LittleEndian(cookie.AsSpan(4), Format);
        BinaryPrimitives.WriteInt64LittleEndian(cookie.AsSpan(8), Address);
        BinaryPrimitives.WriteInt64LittleEndian(cookie.AsSpan(16), NextSequence);
        BinaryPrimitives.WriteUInt32LittleEndian(cookie.AsSpan(24), Crc32C.Compute(cookie.AsSpan(0, 24), 0));
        return cookie;
    }

    /// <summary>Reads the position from a recovered cookie; false when the checkpoint has none (taken without a write-ahead log).</summary>
    /// <exception cref="FormatException">The cookie is not one this type wrote, or is damaged.</exception>
    public static bool TryRead(byte[]? cookie, out WalPosition position)
    {
        position = default;
        if (cookie is null || cookie.Length == 0)
        {
            return false;
        }

        if (cookie.Length != Size
            || BinaryPrimitives.ReadUInt32LittleEndian(cookie) != Magic
            || BinaryPrimitives.ReadInt32LittleEndian(cookie.AsSpan(4)) != Format
            || BinaryPrimitives.ReadUInt32LittleEndian(cookie.AsSpan(24)) != Crc32C.Compute(cookie.AsSpan(0, 24), 0))
        {
            throw new FormatException($"its write-ahead log position ({cookie.Length} bytes) is damaged or of an unknown format");
        }

        position = new WalPosition(BinaryPrimitives.ReadInt64LittleEndian(cookie.AsSpan(8)), BinaryPrimitives.ReadInt64LittleEndian(cookie.AsSpan(16)));
        return true;
    }
}
