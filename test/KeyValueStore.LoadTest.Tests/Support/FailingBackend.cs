using System;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;

namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>A real backend whose writes start failing after the load, as a store that lost its disk would.</summary>
internal sealed class FailingBackend : ILoadTestBackend
{
    private readonly ILoadTestBackend _inner;
    private readonly long _records;
    private long _upserts;

    public FailingBackend(ILoadTestBackend inner, long records)
    {
        _inner = inner;
        _records = records;
    }

    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value) =>
        System.Threading.Interlocked.Increment(ref _upserts) > _records
            ? throw new System.IO.IOException("simulated: no space left on device")
            : _inner.UpsertAsync(key, value);

    public ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination) => _inner.ReadAsync(key, destination);

    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) => _inner.DeleteAsync(key);

    public long BytesOnDisk() => _inner.BytesOnDisk();

    public ValueTask DisposeAsync() => _inner.DisposeAsync();
}
