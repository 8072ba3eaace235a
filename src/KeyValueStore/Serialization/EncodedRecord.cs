using System;

namespace KeyValueStore.Serialization;

/// <summary>
/// The bytes of one upsert's record: its key and its value's plain envelope one after the other in a single pooled
/// buffer, and the value's compressed envelope in a second one when compression paid; or, for a delete in a batch, its
/// key alone (<see cref="OfKey"/>). One buffer rather than one each
/// for key and value saves a pool round trip and a serializer setup on every upsert (docs/benchmarks.md, "Key and value
/// in one buffer").
/// </summary>
internal readonly struct EncodedRecord
{
    private readonly RentedBytes _buffer;
    private readonly int _keyLength;
    private readonly RentedBytes _compressedValue;

    /// <param name="buffer">The key's bytes followed by the value's plain envelope.</param>
    /// <param name="keyLength">How many of <paramref name="buffer"/>'s bytes are the key's.</param>
    /// <param name="compressedValue">The value's compressed envelope, or default when it is stored plain.</param>
    public EncodedRecord(RentedBytes buffer, int keyLength, RentedBytes compressedValue)
    {
        _buffer = buffer;
        _keyLength = keyLength;
        _compressedValue = compressedValue;
    }

    /// <summary>A record of a key alone (a batch's delete), in the pooled bytes <paramref name="key"/>.</summary>
    public static EncodedRecord OfKey(RentedBytes key) => new(key, key.Length, compressedValue: default);

    /// <summary>Gets the key's bytes.</summary>
    public ReadOnlyMemory<byte> Key => _buffer.Memory[.._keyLength];

    /// <summary>Gets the value's envelope as stored: compressed when compression paid, else plain; empty for a key alone.</summary>
    public ReadOnlyMemory<byte> Value => _compressedValue.Length > 0 ? _compressedValue.Memory : _buffer.Memory[_keyLength..];

    /// <summary>Gives the buffers back to the pool; a default record holds none.</summary>
    public void Return()
    {
        _buffer.Return();
        _compressedValue.Return();
    }
}
