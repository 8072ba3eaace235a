using System;
using System.Buffers;
using System.Buffers.Binary;

namespace KeyValueStore.Storage;

/// <summary>
/// The integrity envelope of a value when <see cref="StoreSettings.ValueChecksums"/> is on: the value's bytes followed by a
/// 4-byte little-endian CRC-32C of the key and the value. Covering the key too catches a record whose value is intact
/// but whose key bytes were damaged into another key.
/// </summary>
/// <remarks>
/// A delete that expires a record in place (in FASTER's mutable region) inverts the record's seal
/// (<see cref="MarkDeleted"/>): a record's tombstone bit must then agree with its seal, so recovery's walk of the log
/// (<c>RecordChainCheck</c>) catches a flipped tombstone bit, which would otherwise delete a live key or bring a deleted
/// one back without a trace.
/// </remarks>
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

    /// <summary>Inverts the seal of a stored value that a delete expires in place.</summary>
    public static void MarkDeleted(Span<byte> stored)
    {
        if (stored.Length >= Size)
        {
            Span<byte> seal = stored[^Size..];
            BinaryPrimitives.WriteUInt32LittleEndian(seal, ~BinaryPrimitives.ReadUInt32LittleEndian(seal));
        }
    }

    /// <summary>Whether a stored record's seal says it is live, deleted in place, or neither (damaged).</summary>
    /// <param name="key">The record's key bytes.</param>
    /// <param name="stored">The record's value bytes, seal included.</param>
    public static SealState Check(ReadOnlySpan<byte> key, ReadOnlySpan<byte> stored)
    {
        if (stored.Length < Size)
        {
            return SealState.Damaged;
        }

        uint seal = BinaryPrimitives.ReadUInt32LittleEndian(stored[^Size..]);
        uint computed = Compute(key, stored[..^Size]);
        return seal == computed ? SealState.Live : seal == ~computed ? SealState.Deleted : SealState.Damaged;
    }

    private static uint Compute(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) => Crc32C.Compute(value, Crc32C.Compute(key, 0));
}

/// <summary>What a record's seal says about it (<see cref="ValueChecksum.Check"/>).</summary>
internal enum SealState
{
    /// <summary>The seal matches the key and value.</summary>
    Live,

    /// <summary>The seal is the inverse of the key's and value's: a delete expired the record in place.</summary>
    Deleted,

    /// <summary>The seal matches neither: the key, the value or the seal is damaged.</summary>
    Damaged,
}
