using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;

namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>A real backend that writes batches, passed through unchanged, counting its single upserts and the size of every batch.</summary>
internal sealed class BatchCountingBackend : ILoadTestBackend, IBatchWriter
{
    private readonly ILoadTestBackend _inner;
    private readonly IBatchWriter _batches;
    private readonly ConcurrentQueue<int> _sizes = new();
    private long _upserts;

    public BatchCountingBackend(ILoadTestBackend inner)
    {
        _inner = inner;
        _batches = (IBatchWriter)inner;
    }

    /// <summary>Gets the single upserts acknowledged.</summary>
    public long Upserts => Interlocked.Read(ref _upserts);

    /// <summary>Gets the size of every batch acknowledged, in no particular order.</summary>
    public IReadOnlyCollection<int> BatchSizes => _sizes.ToArray();

    public long BatchedWrites => BatchSizes.Sum(size => (long)size);

    public async ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value)
    {
        await _inner.UpsertAsync(key, value);
        Interlocked.Increment(ref _upserts);
    }

    public async ValueTask WriteBatchAsync(IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> writes)
    {
        await _batches.WriteBatchAsync(writes);
        _sizes.Enqueue(writes.Count);
    }

    public ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination) => _inner.ReadAsync(key, destination);

    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) => _inner.DeleteAsync(key);

    public long BytesOnDisk() => _inner.BytesOnDisk();

    public ValueTask DisposeAsync() => _inner.DisposeAsync();
}
