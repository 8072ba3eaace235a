using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading.Tasks;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// The memory-only baseline: a <see cref="ConcurrentDictionary{TKey, TValue}"/> of byte arrays, no
/// engine, no disk. What the workload costs with nothing behind it: the upper bound for the others.
/// </summary>
internal sealed class MemoryBackend : ILoadTestBackend, IBatchWriter
{
    private readonly ConcurrentDictionary<byte[], byte[]> _map = new(ByteArrayComparer.Instance);
    private readonly ConcurrentDictionary<byte[], byte[]>.AlternateLookup<ReadOnlySpan<byte>> _bySpan;

    public MemoryBackend()
    {
        // Lookups by span: a read allocates nothing to find its key.
        _bySpan = _map.GetAlternateLookup<ReadOnlySpan<byte>>();
    }

    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value)
    {
        // Values are replaced, never changed in place, so a concurrent reader copies a whole version.
        _bySpan[key.Span] = value.ToArray();
        return ValueTask.CompletedTask;
    }

    /// <summary>
    /// A plain loop of upserts, not atomic: a concurrent reader may see part of a batch. This is the baseline
    /// of what writing the values costs with no engine; a lock that made batches atomic would have to be taken
    /// by every read too, and the baseline would then measure that lock.
    /// </summary>
    public ValueTask WriteBatchAsync(IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> writes)
    {
        for (int i = 0; i < writes.Count; i++)
        {
            _bySpan[writes[i].Key.Span] = writes[i].Value.ToArray();
        }

        return ValueTask.CompletedTask;
    }

    public ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination)
    {
        if (!_bySpan.TryGetValue(key.Span, out byte[]? value))
        {
            return ValueTask.FromResult(-1);
        }

        value.AsSpan(0, Math.Min(value.Length, destination.Length)).CopyTo(destination.Span);
        return ValueTask.FromResult(value.Length);
    }

    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) => ValueTask.FromResult(_bySpan.TryRemove(key.Span, out _));

    public long BytesOnDisk() => 0;

    public ValueTask DisposeAsync()
    {
        _map.Clear();
        return ValueTask.CompletedTask;
    }
}
