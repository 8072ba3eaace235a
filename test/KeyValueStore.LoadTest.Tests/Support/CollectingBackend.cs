using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;

namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>The dictionary backend whose first read makes a full, blocking garbage collection: a GC pause the run's report must show.</summary>
internal sealed class CollectingBackend : ILoadTestBackend
{
    private readonly MemoryBackend _inner = new();
    private int _collected;

    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value) => _inner.UpsertAsync(key, value);

    public ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination)
    {
        if (Interlocked.Exchange(ref _collected, 1) == 0)
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        }

        return _inner.ReadAsync(key, destination);
    }

    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) => _inner.DeleteAsync(key);

    public long BytesOnDisk() => _inner.BytesOnDisk();

    public ValueTask DisposeAsync() => _inner.DisposeAsync();
}
