using System;
using System.Runtime.InteropServices;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>For stores whose APIs take <c>byte[]</c>: the caller's array when the memory is all of one, else a copy.</summary>
internal static class WholeArray
{
    /// <summary>
    /// The array behind <paramref name="memory"/> when it spans that whole array (the load test's buffers do, so this
    /// copies nothing), else a copy of exactly its bytes. The caller must not let a store keep the array past the call.
    /// </summary>
    public static byte[] Of(ReadOnlyMemory<byte> memory) =>
        MemoryMarshal.TryGetArray(memory, out ArraySegment<byte> segment) && segment.Offset == 0 && segment.Count == segment.Array!.Length
            ? segment.Array
            : memory.ToArray();
}
