using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;

namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>
/// A real backend that writes batches and loses one write of the run: the first write of the fifth batch is
/// acknowledged with its batch but never written, and neither is any later write of that key, so the final
/// sweep is sure to read a stale version. What --verify must catch in a batch run. Use it with --verify only:
/// its key locks keep a later batch of the lost key from being written before the key is known to be lost.
/// </summary>
internal sealed class LossyBatchBackend : ILoadTestBackend, IBatchWriter
{
    private const int LosingBatch = 5;

    private readonly ILoadTestBackend _inner;
    private readonly IBatchWriter _batches;
    private long _batchCount;
    private byte[]? _lostKey;

    public LossyBatchBackend(ILoadTestBackend inner)
    {
        _inner = inner;
        _batches = (IBatchWriter)inner;
    }

    /// <summary>Gets whether a write was lost.</summary>
    public bool Lost => Volatile.Read(ref _lostKey) is not null;

    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value) => _inner.UpsertAsync(key, value);

    public ValueTask WriteBatchAsync(IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> writes)
    {
        if (Interlocked.Increment(ref _batchCount) == LosingBatch)
        {
            Volatile.Write(ref _lostKey, writes[0].Key.ToArray());
        }

        if (Volatile.Read(ref _lostKey) is not byte[] lost)
        {
            return _batches.WriteBatchAsync(writes);
        }

        return _batches.WriteBatchAsync(writes.Where(write => !write.Key.Span.SequenceEqual(lost)).ToArray());
    }

    public ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination) => _inner.ReadAsync(key, destination);

    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) => _inner.DeleteAsync(key);

    public long BytesOnDisk() => _inner.BytesOnDisk();

    public ValueTask DisposeAsync() => _inner.DisposeAsync();
}
