using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// The bytes of one write-ahead log transaction: the writes of one upsert, one delete or one atomic batch, in order.
/// Each write is an operation byte (1 upsert, 2 delete), the key's length and the value's length (4 bytes each,
/// little-endian), the key, then the value (empty for a delete).
/// </summary>
/// <remarks>
/// Values are logged as the caller gave them, before any value checksum is added: replay writes them through the same
/// path as a live write, which adds it. The log's own per-entry checksum covers these bytes on disk.
/// </remarks>
internal static class WalTransaction
{
    private const byte UpsertOperation = 1;
    private const byte DeleteOperation = 2;
    private const int WriteHeaderSize = 9;

    /// <summary>The encoded size of <paramref name="writes"/>, which may exceed what one buffer can hold.</summary>
    public static long SizeOf(IReadOnlyList<BatchWrite> writes)
    {
        long size = 0;
        for (int i = 0; i < writes.Count; i++)
        {
            size += SizeOf(writes[i].Key.Length, writes[i].IsDelete ? 0 : writes[i].Value.Length);
        }

        return size;
    }

    public static int SizeOf(int keyLength, int valueLength) => WriteHeaderSize + keyLength + valueLength;

    /// <summary>Writes one write at the start of <paramref name="destination"/>; returns the bytes written.</summary>
    public static int Write(Span<byte> destination, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, bool isDelete)
    {
        destination[0] = isDelete ? DeleteOperation : UpsertOperation;
        BinaryPrimitives.WriteInt32LittleEndian(destination[1..], key.Length);
        BinaryPrimitives.WriteInt32LittleEndian(destination[5..], isDelete ? 0 : value.Length);
        key.CopyTo(destination[WriteHeaderSize..]);
        if (!isDelete)
        {
            value.CopyTo(destination[(WriteHeaderSize + key.Length)..]);
        }

        return SizeOf(key.Length, isDelete ? 0 : value.Length);
    }

    /// <summary>Writes <paramref name="writes"/> in order at the start of <paramref name="destination"/>.</summary>
    public static int Write(Span<byte> destination, IReadOnlyList<BatchWrite> writes)
    {
        int offset = 0;
        for (int i = 0; i < writes.Count; i++)
        {
            offset += Write(destination[offset..], writes[i].Key.Span, writes[i].Value.Span, writes[i].IsDelete);
        }

        return offset;
    }

    /// <summary>Decodes a transaction's writes; the keys and values point into <paramref name="transaction"/>.</summary>
    /// <exception cref="FormatException">The bytes are not a transaction.</exception>
    public static List<BatchWrite> Read(ReadOnlyMemory<byte> transaction)
    {
        var writes = new List<BatchWrite>();
        ReadOnlySpan<byte> bytes = transaction.Span;
        int offset = 0;
        while (offset < bytes.Length)
        {
            if (bytes.Length - offset < WriteHeaderSize)
            {
                throw new FormatException($"a write header at offset {offset} is cut off");
            }

            byte operation = bytes[offset];
            int keyLength = BinaryPrimitives.ReadInt32LittleEndian(bytes[(offset + 1)..]);
            int valueLength = BinaryPrimitives.ReadInt32LittleEndian(bytes[(offset + 5)..]);
            if (operation is not (UpsertOperation or DeleteOperation) || keyLength < 0 || valueLength < 0
                || (long)keyLength + valueLength > bytes.Length - offset - WriteHeaderSize
                || (operation == DeleteOperation && valueLength != 0))
            {
                throw new FormatException($"the write at offset {offset} has operation {operation}, key length {keyLength} and value length {valueLength}");
            }

            ReadOnlyMemory<byte> key = transaction.Slice(offset + WriteHeaderSize, keyLength);
            writes.Add(operation == DeleteOperation
                ? BatchWrite.Delete(key)
                : BatchWrite.Upsert(key, transaction.Slice(offset + WriteHeaderSize + keyLength, valueLength)));
            offset += WriteHeaderSize + keyLength + valueLength;
        }

        return writes;
    }

    /// <summary>Rents a buffer holding <paramref name="writes"/> encoded; return it to <see cref="ArrayPool{T}.Shared"/>.</summary>
    public static byte[] Encode(IReadOnlyList<BatchWrite> writes, out int length)
    {
        // The store refuses a batch over BatchTooLargeException.MaxEncodedBytes before writing any of it; checked again here
        // so that a caller that skipped that check fails before the buffer, not after part of the batch was applied.
        byte[] buffer = ArrayPool<byte>.Shared.Rent(Math.Max(1, checked((int)SizeOf(writes))));
        length = Write(buffer, writes);
        return buffer;
    }
}
