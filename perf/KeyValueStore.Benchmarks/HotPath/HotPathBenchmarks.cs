using System;
using System.Collections.Concurrent;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using FASTER.core;
using KeyValueStore.Engine;
using KeyValueStore.Storage;

namespace KeyValueStore.Benchmarks.HotPath;

/// <summary>
/// One in-memory upsert or read, single-threaded (issue 19's first target): the typed store and the engine beneath it
/// against FASTER 2.6.5 used directly (the floor) and a <see cref="ConcurrentDictionary{TKey, TValue}"/> (no log at
/// all), with 8-byte keys and values of <see cref="ValueSize"/> bytes.
/// </summary>
/// <remarks>
/// <para>
/// Raw FASTER is <see cref="RawFasterStore"/> (the engine's own callbacks: an upsert copies the value into the log, a read
/// copies it out into a pooled buffer), called through FASTER's synchronous API: what the engine does for an operation,
/// without its admission, write barrier, key stripe, session pool or async state machine. The engine gets the same key and value
/// bytes; the typed store gets the <c>long</c> key and the <c>byte[]</c> value, which it serializes with MessagePack
/// (a few bytes more per record). The dictionary keeps a reference to the caller's array and copies nothing.
/// </para>
/// <para>
/// Every store is loaded with <see cref="Keys"/> keys before measuring and keys cycle through them, so every read hits
/// and every upsert updates a record in the mutable region in place (64 MB of log memory, compaction off, durability
/// none, a 16 K-bucket index). Each operation is a category with raw FASTER as its baseline, so Ratio is the
/// store's time per operation over FASTER's, and the allocation column is per operation (issue 19: at most 64 B).
/// Run with a job that picks its own invocation count: the suite's job invokes each benchmark once per iteration,
/// too short for one operation of a few hundred nanoseconds.
/// <c>dotnet run -c Release --project perf/KeyValueStore.Benchmarks -- --filter '*HotPath*' --job Short --inProcess</c>
/// </para>
/// </remarks>
[Config(typeof(InMemoryBenchmarkStores.PerOperationConfig))]
public class HotPathBenchmarks
{
    private const int Keys = 1024;

    private HotPathStores? _stores;
    private byte[][] _keyBytes = [];
    private byte[] _value = [];
    private RawFasterStore? _raw;
    private FasterRecordStore? _engine;
    private MixedStorageKVStore<long, byte[]>? _typed;
    private ConcurrentDictionary<long, byte[]> _dictionary = new();
    private int _next;

    /// <summary>The value's length in bytes (issue 19: 16 to 256).</summary>
    [Params(16, 256)]
    public int ValueSize { get; set; }

    [GlobalSetup]
    public async Task OpenStoresAsync()
    {
        _stores = HotPathStores.Open("kvstore-bench-hotpath", Keys, ValueSize);
        (_keyBytes, _value, _raw, _engine, _typed, _dictionary) = (_stores.KeyBytes, _stores.Value, _stores.Raw, _stores.Engine!, _stores.Typed!, _stores.Dictionary);

        for (int key = 0; key < Keys; key++)
        {
            Raw_Upsert();
            await _engine.UpsertAsync(_keyBytes[_next], _value).ConfigureAwait(false);
            await _typed.UpsertAsync(_next, _value).ConfigureAwait(false);
            _dictionary[_next] = _value;
        }

        if (Raw_Read() != ValueSize || await Engine_Read().ConfigureAwait(false) != ValueSize || await Typed_Read().ConfigureAwait(false) != ValueSize)
        {
            throw new InvalidOperationException("A loaded key was not read back whole; the stores would not do like work.");
        }
    }

    [GlobalCleanup]
    public Task CloseStoresAsync() => _stores?.CloseAsync() ?? Task.CompletedTask;

    [BenchmarkCategory("Upsert"), Benchmark(Baseline = true)]
    public void Raw_Upsert() => _raw!.Upsert(_keyBytes[NextKey()], _value);

    /// <summary>
    /// Raw FASTER through its asynchronous upsert, the call the engine makes (<see cref="PinnedRecord.UpsertAsync"/>):
    /// how much of the engine's time over <see cref="Raw_Upsert"/> is FASTER's own asynchronous API, not the engine's layers.
    /// </summary>
    [BenchmarkCategory("Upsert"), Benchmark]
    public async ValueTask RawAsync_Upsert()
    {
        var result = await PinnedRecord.UpsertAsync(_raw!.Session, _keyBytes[NextKey()], _value).ConfigureAwait(false);
        while (result.Status.IsPending)
        {
            result = await result.CompleteAsync().ConfigureAwait(false);
        }
    }

    [BenchmarkCategory("Upsert"), Benchmark]
    public ValueTask Engine_Upsert() => _engine!.UpsertAsync(_keyBytes[NextKey()], _value);

    [BenchmarkCategory("Upsert"), Benchmark]
    public ValueTask Typed_Upsert() => _typed!.UpsertAsync(NextKey(), _value);

    [BenchmarkCategory("Upsert"), Benchmark]
    public void Dictionary_Upsert() => _dictionary[NextKey()] = _value;

    /// <summary>A read that hits; returns the value's length so that it cannot be optimized away.</summary>
    [BenchmarkCategory("Read"), Benchmark(Baseline = true)]
    public int Raw_Read()
    {
        if (!PinnedRecord.TryRead(_raw!.Session, _keyBytes[NextKey()], locate: false, out Status status, out PooledBuffer value))
        {
            throw new InvalidOperationException("An in-memory read went to the disk.");
        }

        int length = status.Found ? value.Length : -1;
        value.Return();
        return length;
    }

    [BenchmarkCategory("Read"), Benchmark]
    public ValueTask<int> Engine_Read() => InMemoryBenchmarkStores.ReadLengthAsync(_engine!, _keyBytes[NextKey()]);

    [BenchmarkCategory("Read"), Benchmark]
    public async ValueTask<int> Typed_Read()
    {
        ReadResult<byte[]> result = await _typed!.ReadAsync(NextKey()).ConfigureAwait(false);
        return result.Value?.Length ?? -1;
    }

    [BenchmarkCategory("Read"), Benchmark]
    public int Dictionary_Read() => _dictionary.TryGetValue(NextKey(), out byte[]? value) ? value.Length : -1;

    private int NextKey() => _next = (_next + 1) & (Keys - 1);
}
