using System;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// An optional capability of a backend: writing several records as one atomic batch, which --batch-size
/// needs. A concurrent reader sees a batch whole or not at all, and a durable backend has made all of it
/// durable when the task completes. The memory baseline is the one exception: it writes a batch as a
/// plain loop, not atomically (see <see cref="MemoryBackend"/>).
/// </summary>
/// <remarks>
/// The writes are upserts, applied in order: the last write of a key in a batch wins. As for
/// <see cref="ILoadTestBackend.UpsertAsync"/>, the caller reuses the buffers as soon as the task completes.
/// </remarks>
internal interface IBatchWriter
{
    /// <summary>Writes every value of <paramref name="writes"/> under its key, as one atomic batch.</summary>
    ValueTask WriteBatchAsync(IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> writes);
}
