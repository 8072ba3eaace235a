using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;

namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>A real backend seen through <see cref="ILoadTestBackend"/> alone: no optional capability, so it cannot write batches.</summary>
internal sealed class SingleWritesBackend : ILoadTestBackend
{
    private readonly ILoadTestBackend _inner;
    private long _upserts;

    public SingleWritesBackend(ILoadTestBackend inner)
    {
        _inner = inner;
    }

    public long Upserts => Interlocked.Read(ref _upserts);

    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value)
    {
        Interlocked.Increment(ref _upserts);
        return _inner.UpsertAsync(key, value);
    }

    public ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination) => _inner.ReadAsync(key, destination);

    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) => _inner.DeleteAsync(key);

    public long BytesOnDisk() => _inner.BytesOnDisk();

    public ValueTask DisposeAsync() => _inner.DisposeAsync();
}
