using System;
using System.Buffers;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using MessagePack;
using MessagePack.Formatters;

namespace KeyValueStore.Serialization;

/// <summary>
/// Turns values into stored bytes and back: MessagePack inside a <see cref="ValueEnvelope"/>, LZ4-compressed when the
/// payload is at least the store's compression threshold and compression makes it smaller; attempts back off while
/// the values tried do not shrink (<see cref="CompressionBackoff"/>).
/// </summary>
/// <remarks>
/// MessagePack's own compression option is switched off: the envelope compresses instead, once, after a size check
/// against the page, and records the decompressed length so a reader can check it before allocating.
/// </remarks>
internal sealed class ValueCodec<TValue> : IValueDecoder<TValue>
{
    private readonly MessagePackSerializerOptions _options;
    // Looked up once for encoding; decoding goes through MessagePackSerializer, which measured faster in a typed read
    // (docs/benchmarks.md, "Formatters looked up once").
    private readonly IMessagePackFormatter<TValue> _formatter;
    private readonly int _compressionThreshold;
    private readonly int _maxPayloadLength;
    private readonly CompressionBackoff _backoff = new();

    /// <summary>Gets what became of the values at or above the threshold, for the store's metrics.</summary>
    public CompressionCounts Counts { get; } = new();

    /// <param name="options">The user's MessagePack options; their compression setting is ignored.</param>
    /// <param name="compressionThreshold">Payloads of at least this many bytes are compressed; negative: none are.</param>
    /// <param name="maxPayloadLength">The largest payload a record can hold: a decompressed length above it is damage.</param>
    /// <exception cref="SerializationFailedException">MessagePack has no formatter for <typeparamref name="TValue"/>.</exception>
    public ValueCodec(MessagePackSerializerOptions options, int compressionThreshold, int maxPayloadLength)
    {
        _options = options.WithCompression(MessagePackCompression.None);
        _compressionThreshold = compressionThreshold;
        _maxPayloadLength = maxPayloadLength;
        _formatter = MessagePackEncoding.FormatterFor<TValue>(_options, "value");
    }

    /// <summary>
    /// Serializes <paramref name="value"/> into an uncompressed envelope. The caller checks that it fits in a page
    /// (so that every value decompresses to at most a page), then calls <see cref="CompressIfWorthwhile"/>.
    /// </summary>
    /// <exception cref="SerializationFailedException">MessagePack failed to serialize the value.</exception>
    public RentedBytes EncodePlain(TValue value)
    {
        PooledBufferWriter writer = PooledBufferWriter.Take();
        EncodePlainInto(writer, value);
        return writer.Detach();
    }

    /// <summary>
    /// Appends <paramref name="value"/>'s uncompressed envelope to <paramref name="writer"/> (after its key, for an
    /// upsert); on failure the writer is abandoned. The caller checks the record fits in a page, then calls
    /// <see cref="TryCompressWorthwhile"/>.
    /// </summary>
    /// <exception cref="SerializationFailedException">MessagePack failed to serialize the value.</exception>
    public void EncodePlainInto(PooledBufferWriter writer, TValue value)
    {
        ValueEnvelope.WritePlainHeader(writer);
        MessagePackEncoding.Serialize(writer, value, _formatter, _options, "value");
    }

    /// <summary>Replaces a plain envelope with its compressed form when its payload reaches the threshold and LZ4 shrinks it.</summary>
    public RentedBytes CompressIfWorthwhile(RentedBytes plain)
    {
        if (!TryCompressWorthwhile(plain.Memory.Span, out RentedBytes compressed))
        {
            return plain;
        }

        plain.Return();
        return compressed;
    }

    /// <summary>
    /// The compressed form of a plain envelope, in pooled bytes the caller returns, when its payload reaches the
    /// threshold, compression is not backed off, and LZ4 shrinks it; false (and nothing rented) otherwise.
    /// </summary>
    public bool TryCompressWorthwhile(ReadOnlySpan<byte> plainEnvelope, out RentedBytes compressed)
    {
        compressed = default;
        int payloadLength = plainEnvelope.Length - ValueEnvelope.PlainHeaderSize;
        if (_compressionThreshold < 0 || payloadLength < _compressionThreshold)
        {
            return false;
        }

        if (!_backoff.ShouldTry())
        {
            Counts.CountNotTried();
            return false;
        }

        bool shrank = ValueEnvelope.TryCompress(plainEnvelope, out compressed);
        _backoff.Record(shrank);
        if (shrank)
        {
            Counts.CountCompressed();
        }
        else
        {
            Counts.CountIncompressible();
        }

        return shrank;
    }

    /// <exception cref="ValueCorruptedException">The stored bytes are not a value of this store.</exception>
    public TValue Decode(ReadOnlyMemory<byte> stored)
    {
        ReadOnlyMemory<byte> payload = ValueEnvelope.Open(stored, _maxPayloadLength, out byte[]? rented);
        try
        {
            return MessagePackEncoding.Deserialize<TValue>(payload, _options);
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }
}
