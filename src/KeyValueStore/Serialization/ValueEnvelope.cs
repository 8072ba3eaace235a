using System;
using System.Buffers;
using System.Buffers.Binary;
using K4os.Compression.LZ4;

namespace KeyValueStore.Serialization;

/// <summary>
/// The bytes a value is stored as: one codec byte, then either the MessagePack payload as it is, or the payload's
/// length (4 bytes, little-endian) and its LZ4 block.
/// </summary>
/// <remarks>
/// The codec byte is the envelope's version: a reader meeting a codec it does not know refuses the value instead of
/// guessing. The recorded length is untrusted input (a damaged record, a hostile file), so it is checked against the
/// largest payload a record can hold before anything is allocated for it.
/// </remarks>
internal static class ValueEnvelope
{
    /// <summary>The codec byte of a payload stored as it is.</summary>
    public const byte Plain = 0x00;

    /// <summary>The codec byte of an LZ4 block (K4os.Compression.LZ4, <see cref="LZ4Level.L00_FAST"/>) after a length.</summary>
    public const byte Lz4Block = 0x01;

    /// <summary>The bytes in front of a plain payload.</summary>
    public const int PlainHeaderSize = 1;

    private const int Lz4HeaderSize = 1 + sizeof(int);

    /// <summary>Writes the plain codec byte; the payload is serialized right after it.</summary>
    public static void WritePlainHeader(IBufferWriter<byte> writer)
    {
        writer.GetSpan(PlainHeaderSize)[0] = Plain;
        writer.Advance(PlainHeaderSize);
    }

    /// <summary>
    /// Compresses the payload of a plain envelope into a new envelope, or returns false when that would not be smaller
    /// (incompressible data stays plain, so it never costs more than one byte).
    /// </summary>
    public static bool TryCompress(ReadOnlySpan<byte> plainEnvelope, out RentedBytes compressed)
    {
        ReadOnlySpan<byte> payload = plainEnvelope[PlainHeaderSize..];
        byte[] target = ArrayPool<byte>.Shared.Rent(Lz4HeaderSize + LZ4Codec.MaximumOutputSize(payload.Length));
        int blockLength = LZ4Codec.Encode(payload, target.AsSpan(Lz4HeaderSize), LZ4Level.L00_FAST);
        if (blockLength <= 0 || Lz4HeaderSize + blockLength >= plainEnvelope.Length)
        {
            ArrayPool<byte>.Shared.Return(target);
            compressed = default;
            return false;
        }

        target[0] = Lz4Block;
        BinaryPrimitives.WriteInt32LittleEndian(target.AsSpan(1), payload.Length);
        compressed = new RentedBytes(target, Lz4HeaderSize + blockLength);
        return true;
    }

    /// <summary>
    /// Opens an envelope: the payload itself when plain, else the payload decompressed into <paramref name="rented"/>,
    /// which the caller returns to <see cref="ArrayPool{T}.Shared"/> when set.
    /// </summary>
    /// <param name="stored">The stored bytes.</param>
    /// <param name="maxPayloadLength">The largest payload a record of this store can hold; a larger recorded length is damage.</param>
    /// <param name="rented">The pooled array holding a decompressed payload, or null.</param>
    /// <exception cref="ValueCorruptedException">The envelope is empty, of an unknown codec, or its length or block is damaged.</exception>
    public static ReadOnlyMemory<byte> Open(ReadOnlyMemory<byte> stored, int maxPayloadLength, out byte[]? rented)
    {
        rented = null;
        if (stored.IsEmpty)
        {
            throw new ValueCorruptedException("it is empty, so it lacks even the envelope's codec byte");
        }

        ReadOnlySpan<byte> bytes = stored.Span;
        switch (bytes[0])
        {
            case Plain:
                return stored[PlainHeaderSize..];
            case Lz4Block:
                return Decompress(bytes, maxPayloadLength, out rented);
            default:
                throw new ValueCorruptedException($"its envelope's codec byte is 0x{bytes[0]:x2}, which no version of this library writes (0x{Plain:x2} plain, 0x{Lz4Block:x2} LZ4)");
        }
    }

    private static ReadOnlyMemory<byte> Decompress(ReadOnlySpan<byte> envelope, int maxPayloadLength, out byte[]? rented)
    {
        rented = null;
        if (envelope.Length < Lz4HeaderSize)
        {
            throw new ValueCorruptedException($"its LZ4 envelope is {envelope.Length} bytes long, too short to hold the {Lz4HeaderSize}-byte header");
        }

        int length = BinaryPrimitives.ReadInt32LittleEndian(envelope[1..]);
        if (length <= 0 || length > maxPayloadLength)
        {
            throw new ValueCorruptedException($"its LZ4 envelope records a decompressed length of {length} bytes, but a value of this store holds 1 to {maxPayloadLength}");
        }

        byte[] target = ArrayPool<byte>.Shared.Rent(length);
        int decoded = LZ4Codec.Decode(envelope[Lz4HeaderSize..], target.AsSpan(0, length));
        if (decoded != length)
        {
            ArrayPool<byte>.Shared.Return(target);
            throw new ValueCorruptedException($"its LZ4 block decompresses to {(decoded < 0 ? "an error" : decoded + " bytes")}, not the {length} bytes its envelope records");
        }

        rented = target;
        return target.AsMemory(0, length);
    }
}
