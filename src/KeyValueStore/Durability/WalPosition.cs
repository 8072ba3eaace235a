using System;
using System.Buffers.Binary;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// The write-ahead log address a checkpoint holds everything before, stored as the checkpoint's commit cookie: recovery
/// restores the checkpoint, then replays the log from here.
/// </summary>
/// <remarks>
/// FASTER appends the cookie to the checkpoint's metadata outside the metadata's own checksum, so it carries its own:
/// magic "KVWP" (4 bytes), format 1 (4), the address (8), CRC-32C of those (4).
/// </remarks>
internal static class WalPosition
{
    private const uint Magic = 0x5057564B; // "KVWP", little-endian
    private const int Format = 1;
    private const int Size = 20;

    public static byte[] ToCookie(long address)
    {
        byte[] cookie = new byte[Size];
        BinaryPrimitives.WriteUInt32LittleEndian(cookie, Magic);
        BinaryPrimitives.WriteInt32LittleEndian(cookie.AsSpan(4), Format);
        BinaryPrimitives.WriteInt64LittleEndian(cookie.AsSpan(8), address);
        BinaryPrimitives.WriteUInt32LittleEndian(cookie.AsSpan(16), Crc32C.Compute(cookie.AsSpan(0, 16), 0));
        return cookie;
    }

    /// <summary>Reads the address from a recovered cookie; false when the checkpoint has none (taken without a write-ahead log).</summary>
    /// <exception cref="FormatException">The cookie is not one this class wrote, or is damaged.</exception>
    public static bool TryRead(byte[]? cookie, out long address)
    {
        address = 0;
        if (cookie is null || cookie.Length == 0)
        {
            return false;
        }

        if (cookie.Length != Size
            || BinaryPrimitives.ReadUInt32LittleEndian(cookie) != Magic
            || BinaryPrimitives.ReadInt32LittleEndian(cookie.AsSpan(4)) != Format
            || BinaryPrimitives.ReadUInt32LittleEndian(cookie.AsSpan(16)) != Crc32C.Compute(cookie.AsSpan(0, 16), 0))
        {
            throw new FormatException($"its write-ahead log position ({cookie.Length} bytes) is damaged or of an unknown format");
        }

        address = BinaryPrimitives.ReadInt64LittleEndian(cookie.AsSpan(8));
        return true;
    }
}
