using System;
using MessagePack;
using MessagePack.Formatters;

namespace KeyValueStore.Serialization;

/// <summary>
/// Serializes keys into their canonical bytes: MessagePack with the user's resolver and settings but never compressed,
/// so equal keys always give equal bytes (the bytes are what FASTER hashes and compares).
/// </summary>
internal sealed class KeyEncoder<TKey>
{
    private readonly MessagePackSerializerOptions _options;
    private readonly IMessagePackFormatter<TKey> _formatter;

    /// <exception cref="SerializationFailedException">MessagePack has no formatter for <typeparamref name="TKey"/>.</exception>
    public KeyEncoder(MessagePackSerializerOptions options)
    {
        _options = options.WithCompression(MessagePackCompression.None);
        _formatter = MessagePackEncoding.FormatterFor<TKey>(_options, "key");
    }

    /// <summary>Serializes <paramref name="key"/> into pooled bytes the caller returns.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is null.</exception>
    /// <exception cref="SerializationFailedException">MessagePack failed to serialize the key.</exception>
    public RentedBytes Encode(TKey key)
    {
        PooledBufferWriter writer = PooledBufferWriter.Take();
        EncodeInto(writer, key);
        return writer.Detach();
    }

    /// <summary>
    /// Appends <paramref name="key"/>'s bytes to <paramref name="writer"/>, so that a value can follow in the same
    /// buffer; on failure the writer is abandoned (its buffer goes back to the pool).
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is null.</exception>
    /// <exception cref="SerializationFailedException">MessagePack failed to serialize the key.</exception>
    public void EncodeInto(PooledBufferWriter writer, TKey key)
    {
        if (key is null)
        {
            writer.Abandon();
            throw new ArgumentNullException(nameof(key), "A key cannot be null: the store finds records by the bytes of their keys.");
        }

        MessagePackEncoding.Serialize(writer, key, _formatter, _options, "key");
    }
}
