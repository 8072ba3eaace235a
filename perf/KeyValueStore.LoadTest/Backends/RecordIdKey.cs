using System;
using System.Buffers.Binary;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// The record id a load-test key carries (<see cref="RecordCodec.WriteKey"/>), for the backends whose stores are keyed by
/// <see cref="long"/> as an application keyed by ids would be: the typed store and the Redis store.
/// </summary>
internal static class RecordIdKey
{
    /// <summary>The id in <paramref name="key"/>, 8 big-endian bytes; any other key is a caller's mistake.</summary>
    public static long Read(ReadOnlyMemory<byte> key) =>
        key.Length == RecordCodec.KeySize
            ? BinaryPrimitives.ReadInt64BigEndian(key.Span)
            : throw new ArgumentException($"The backends keyed by long store load-test keys: a record id as {RecordCodec.KeySize} big-endian bytes; got a key of {key.Length} bytes.", nameof(key));
}
