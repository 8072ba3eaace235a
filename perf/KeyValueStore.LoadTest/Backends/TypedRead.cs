using System;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>What the typed backends (<see cref="TypedBackend"/>, <see cref="RedisStoreBackend"/>) do with a read's result.</summary>
internal static class TypedRead
{
    /// <summary>-1 when the key was not found; else copies what fits of the value into <paramref name="destination"/> and returns its full length.</summary>
    public static int CopyInto(ReadResult<byte[]> read, Memory<byte> destination)
    {
        if (read.Status != KeyStatus.Found)
        {
            return -1;
        }

        // A stored null byte[] is a value too (MessagePack nil); the load test never writes one, so it reads as empty.
        byte[] value = read.Value ?? [];
        value.AsSpan(0, Math.Min(value.Length, destination.Length)).CopyTo(destination.Span);
        return value.Length;
    }
}
