using System;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Turns a stored value's bytes into what the caller wants, while the engine still holds the pooled copy of them.
/// The bytes are valid only during <see cref="Decode"/>: an implementation must not keep them.
/// </summary>
/// <typeparam name="T">What a value decodes to.</typeparam>
internal interface IValueDecoder<out T>
{
    /// <summary>Decodes one stored value.</summary>
    T Decode(ReadOnlyMemory<byte> stored);
}
