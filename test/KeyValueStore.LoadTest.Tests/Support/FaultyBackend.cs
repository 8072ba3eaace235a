using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;

namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>
/// A real backend with one deliberate fault injected after the load: what --verify exists to catch.
/// Everything else passes through to the real store unchanged.
/// </summary>
internal sealed class FaultyBackend : ILoadTestBackend
{
    private readonly ILoadTestBackend _inner;
    private readonly Fault _fault;
    private readonly long _records;
    private long _upserts;
    private long _reads;
    private int _injected;
    private byte[]? _lostKey;

    public FaultyBackend(ILoadTestBackend inner, Fault fault, long records)
    {
        _inner = inner;
        _fault = fault;
        _records = records;
    }

    /// <summary>Gets whether the fault happened.</summary>
    public bool Injected => Volatile.Read(ref _injected) == 1;

    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value)
    {
        if (_fault == Fault.LostWrite)
        {
            // The load writes exactly one upsert per record; the 100th write after it is lost, and so is
            // every later write of that key, so the final sweep is sure to read a stale version.
            bool afterLoad = Interlocked.Increment(ref _upserts) > _records + 100;
            if (afterLoad && TryInject())
            {
                _lostKey = key.ToArray();
                return ValueTask.CompletedTask;
            }

            if (Volatile.Read(ref _lostKey) is byte[] lost && key.Span.SequenceEqual(lost))
            {
                return ValueTask.CompletedTask;
            }
        }

        return _inner.UpsertAsync(key, value);
    }

    public async ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination)
    {
        int length = await _inner.ReadAsync(key, destination);
        bool due = Interlocked.Increment(ref _reads) >= 100; // No reads during the load: the 100th is in the run.
        if (due && length > 20 && _fault == Fault.CorruptRead && TryInject())
        {
            destination.Span[20] ^= 0x5A;
        }
        else if (due && length >= 0 && _fault == Fault.MissingRead && TryInject())
        {
            return -1;
        }

        return length;
    }

    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) => _inner.DeleteAsync(key);

    public long BytesOnDisk() => _inner.BytesOnDisk();

    public ValueTask DisposeAsync() => _inner.DisposeAsync();

    private bool TryInject() => Interlocked.CompareExchange(ref _injected, 1, 0) == 0;
}
