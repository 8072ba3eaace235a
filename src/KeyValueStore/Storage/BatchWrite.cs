using System;

namespace KeyValueStore.Storage;

/// <summary>One write of an atomic batch: an upsert of <see cref="Value"/>, or a delete.</summary>
internal readonly record struct BatchWrite(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value, bool IsDelete)
{
    public static BatchWrite Upsert(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value) => new(key, value, IsDelete: false);

    public static BatchWrite Delete(ReadOnlyMemory<byte> key) => new(key, default, IsDelete: true);
}
