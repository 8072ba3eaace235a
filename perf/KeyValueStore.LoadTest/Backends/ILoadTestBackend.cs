using System;
using System.Threading.Tasks;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// What the load test and the benchmarks need from a store: write, read, delete, and how much disk it uses.
/// Implementations are safe for any number of concurrent callers. An insert is an upsert of a new key. No
/// load-test workload (YCSB's A–F, our W) deletes; the benchmarks, which run every store through this same
/// adapter, do. A backend that can count its durable flushes also implements <see cref="IDurableFlushCounter"/>,
/// and one that writes atomic batches <see cref="IBatchWriter"/>.
/// </summary>
/// <remarks>
/// Buffers passed in are reused by the caller as soon as the returned task completes, so a backend
/// that keeps a value must copy it.
/// </remarks>
internal interface ILoadTestBackend : IAsyncDisposable
{
    /// <summary>Writes <paramref name="value"/> under <paramref name="key"/>, replacing any value it had.</summary>
    ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value);

    /// <summary>
    /// Reads the value of <paramref name="key"/>: -1 when the key has no value; otherwise the value's full
    /// length, of which the first min(length, destination.Length) bytes were copied to <paramref name="destination"/>.
    /// </summary>
    ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination);

    /// <summary>
    /// Removes <paramref name="key"/> and its value: true when the key had a value, false when it had none (and
    /// nothing changed). A backend whose store cannot tell says so in its remarks.
    /// </summary>
    ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key);

    /// <summary>The bytes of every file the backend has on disk now (0 for a memory-only backend).</summary>
    long BytesOnDisk();
}
