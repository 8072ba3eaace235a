using System;
using System.Buffers.Binary;
using System.Numerics;

namespace KeyValueStore.Storage;

/// <summary>
/// CRC-32C (Castagnoli) over byte spans, on the runtime's <see cref="BitOperations.Crc32C(uint, ulong)"/>, which uses the
/// CPU's CRC instruction where there is one. The checksum of record values and of the manifest.
/// </summary>
internal static class Crc32C
{
    /// <summary>Continues <paramref name="crc"/> (0 to start) over <paramref name="bytes"/>.</summary>
    public static uint Compute(ReadOnlySpan<byte> bytes, uint crc)
    {
        crc = ~crc;
        while (bytes.Length >= sizeof(ulong))
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(bytes));
            bytes = bytes[sizeof(ulong)..];
        }

        foreach (byte b in bytes)
        {
            crc = BitOperations.Crc32C(crc, b);
        }

        return ~crc;
    }
}
