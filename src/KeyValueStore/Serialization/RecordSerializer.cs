using System;
using KeyValueStore.Serialization;
using MessagePack;

namespace KeyValueStore;

/// <summary>
/// Turns keys and values into the bytes <see cref="MixedStorageKVStore{TKey, TValue}"/> stores, and stored bytes back
/// into values: MessagePack, and for values an envelope that LZ4-compresses those of at least the compression threshold.
/// A store over another engine (the KeyValueStore.Redis package) uses it, so a key and a value have the same bytes
/// wherever they are stored. Thread-safe.
/// </summary>
/// <typeparam name="TKey">The key type; MessagePack must be able to serialize it.</typeparam>
/// <typeparam name="TValue">The value type; MessagePack must be able to serialize it.</typeparam>
public sealed class RecordSerializer<TKey, TValue>
{
    private readonly KeyEncoder<TKey> _keys;
    private readonly ValueCodec<TValue> _values;

    /// <summary>Creates a serializer with the settings a store's options give.</summary>
    /// <param name="options">MessagePack's options (their compression setting is ignored); <see cref="MessagePackSerializerOptions.Standard"/> when null.</param>
    /// <param name="valueCompressionThresholdBytes">Serialized values of at least this many bytes are compressed; negative: none are.</param>
    /// <param name="maxValueBytes">The largest serialized value, before compression, to write or to read back.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="maxValueBytes"/> is not positive.</exception>
    /// <exception cref="SerializationFailedException">MessagePack cannot serialize <typeparamref name="TKey"/> or <typeparamref name="TValue"/>.</exception>
    public RecordSerializer(MessagePackSerializerOptions? options, int valueCompressionThresholdBytes, int maxValueBytes)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxValueBytes);
        options ??= MessagePackSerializerOptions.Standard;
        MaxValueBytes = maxValueBytes;
        _keys = new KeyEncoder<TKey>(options);
        _values = new ValueCodec<TValue>(options, valueCompressionThresholdBytes, maxValueBytes);
    }

    /// <summary>Gets the largest serialized value, before compression, this serializer writes or reads.</summary>
    public int MaxValueBytes { get; }

    /// <summary>
    /// Gets what became of the values this serializer wrote at or above its compression threshold so far: compressed,
    /// tried and stored plain, or stored plain untried while attempts backed off. A store reports it as
    /// <c>kvstore.value.compression</c>.
    /// </summary>
    public ValueCompressionTally ValueCompression => _values.Counts.Tally();

    /// <summary>Serializes a key into its canonical bytes: equal keys give equal bytes.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is null.</exception>
    /// <exception cref="SerializationFailedException">MessagePack failed to serialize the key.</exception>
    public byte[] SerializeKey(TKey key)
    {
        RentedBytes bytes = _keys.Encode(key);
        try
        {
            return bytes.Memory.ToArray();
        }
        finally
        {
            bytes.Return();
        }
    }

    /// <summary>Serializes a value into its stored bytes, compressed when it reaches the threshold and LZ4 shrinks it.</summary>
    /// <exception cref="SerializationFailedException">MessagePack failed to serialize the value.</exception>
    /// <exception cref="RecordTooLargeException">The serialized value is over <see cref="MaxValueBytes"/>.</exception>
    public byte[] SerializeValue(TValue value)
    {
        RentedBytes stored = _values.EncodePlain(value);
        try
        {
            int payloadLength = stored.Length - ValueEnvelope.PlainHeaderSize;
            if (payloadLength > MaxValueBytes)
            {
                throw RecordTooLargeException.OverValueLimit(payloadLength, MaxValueBytes);
            }

            stored = _values.CompressIfWorthwhile(stored);
            return stored.Memory.ToArray();
        }
        finally
        {
            stored.Return();
        }
    }

    /// <summary>Reads a value back from its stored bytes.</summary>
    /// <exception cref="ValueCorruptedException">The bytes are not a stored value of this type.</exception>
    public TValue DeserializeValue(ReadOnlyMemory<byte> stored) => _values.Decode(stored);
}
