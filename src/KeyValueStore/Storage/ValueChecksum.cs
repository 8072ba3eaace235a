using System;
using System.Buffers;
using System.Buffers.Binary;

namespace KeyValueStore.Storage;

/// <summary>
/// The integrity envelope of a value when <see cref="StoreSettings.ValueChecksums"/> is on: the value's bytes followed by a
/// 4-byte little-endian CRC-32C of the key and the value. Covering the key too catches a record whose value is intact
/// but whose key bytes were damaged into another key.
/// </summary>
internal static class ValueChecksum
{
    public const int Size = sizeof(uint);

    /// <summary>Rents a buffer holding <paramref name="value"/> and its checksum; the caller returns it to <see cref="ArrayPool{T}.Shared"/>.</summary>
    public static byte[] Seal(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, out int length)
    {
        length = value.Length + Size;
        byte[] sealedValue = ArrayPool<byte>.Shared.Rent(length);
        value.CopyTo(sealedValue);
        BinaryPrimitives.WriteUInt32LittleEndian(sealedValue.AsSpan(value.Length), Compute(key, value));
        return sealedValue;
    }

    /// <summary>Checks a stored value against its trailer and, if it matches, trims the trailer off.</summary>
    public static bool TryOpen(ReadOnlySpan<byte> key, ref PooledBuffer stored)
    {
        ReadOnlySpan<byte> bytes = stored.Span;
        if (bytes.Length < Size)
        {
            return false;
        }

        ReadOnlySpan<byte> value = bytes[..^Size];
        if (BinaryPrimitives.ReadUInt32LittleEndian(bytes[^Size..]) != Compute(key, value))
        {
            return false;
        }

        stored.TrimEnd(Size);
        return true;
    }

    private static uint Compute(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) => Crc32C.Compute(value, Crc32C.Compute(key, 0));
}
