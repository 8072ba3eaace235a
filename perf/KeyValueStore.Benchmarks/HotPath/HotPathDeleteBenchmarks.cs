using System;
using System.Collections.Concurrent;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.Engine;

namespace KeyValueStore.Benchmarks.HotPath;

/// <summary>
/// One in-memory delete of a live key, single-threaded (issue 19: deletes share the upsert's targets): the typed store
/// and the engine against raw FASTER doing the engine's delete through its synchronous API (<see cref="RawFasterStore"/>)
/// and a <see cref="ConcurrentDictionary{TKey, TValue}"/>, with 8-byte keys and values of <see cref="ValueSize"/> bytes.
/// </summary>
/// <remarks>
/// <para>
/// A key deleted once is gone, and deleting it again is a different, cheaper operation (FASTER finds a tombstone and
/// writes nothing). So every measured delete finds a live record: before each iteration the benchmark's store gets all
/// <see cref="Keys"/> keys back, and the iteration deletes each of them once (its invocation count is the key count;
/// one more would fail on the key array's end). Deletes that complete at once are checked to have found their key.
/// </para>
/// <para>
/// Writing a key back over its tombstone appends a new record (FASTER never revives a tombstone in place), so the stores
/// get 1 GB of log memory: an iteration appends 3 MB (16-byte values) or 19 MB (256-byte values), so runs of up to 50
/// iterations stay in memory and every delete stays a delete in the mutable region, in place. Otherwise as
/// <see cref="HotPathBenchmarks"/>: compaction off, durability none, an index of twice as many buckets as keys, allocation
/// per delete in its column (issue 19: at most 64 B). Iterations are short (a few milliseconds), so the figures in
/// docs/benchmarks.md ("Deletes", which also tells of a process whose first benchmark ran slow throughout) come from
/// more of them: <c>dotnet run -c Release --project perf/KeyValueStore.Benchmarks -- --filter '*HotPathDelete*'
/// --job Short --iterationCount 20 --warmupCount 15 --inProcess</c>
/// </para>
/// </remarks>
[Config(typeof(InMemoryBenchmarkStores.PerOperationConfig))]
[InvocationCount(Keys, unrollFactor: 1)]
public class HotPathDeleteBenchmarks
{
    private const int Keys = 1 << 16;

    private HotPathStores? _stores;
    private byte[][] _keyBytes = [];
    private byte[] _value = [];
    private RawFasterStore? _raw;
    private FasterRecordStore? _engine;
    private MixedStorageKVStore<long, byte[]>? _typed;
    private ConcurrentDictionary<long, byte[]> _dictionary = new();
    private int _next;

    /// <summary>The deleted records' value length in bytes (issue 19: 16 to 256).</summary>
    [Params(16, 256)]
    public int ValueSize { get; set; }

    [GlobalSetup]
    public void OpenStores()
    {
        _stores = HotPathStores.Open("kvstore-bench-hotpath-delete", Keys, ValueSize, options =>
        {
            options.MemorySizeBits = 30;
            options.IndexNumBuckets = 2 * Keys;
        });
        (_keyBytes, _value, _raw, _engine, _typed, _dictionary) = (_stores.KeyBytes, _stores.Value, _stores.Raw, _stores.Engine!, _stores.Typed!, _stores.Dictionary);
    }

    [GlobalCleanup]
    public Task CloseStoresAsync() => _stores?.CloseAsync() ?? Task.CompletedTask;

    [IterationSetup(Target = nameof(Raw_Delete))]
    public void LoadRaw()
    {
        for (int key = 0; key < Keys; key++)
        {
            _raw!.Upsert(_keyBytes[key], _value);
        }

        _next = 0;
    }

    [IterationSetup(Target = nameof(RawAsync_Delete))]
    public void LoadRawForAsync() => LoadRaw();

    [IterationSetup(Target = nameof(Engine_Delete))]
    public void LoadEngine()
    {
        for (int key = 0; key < Keys; key++)
        {
            _engine!.UpsertAsync(_keyBytes[key], _value).AsTask().GetAwaiter().GetResult();
        }

        _next = 0;
    }

    [IterationSetup(Target = nameof(Typed_Delete))]
    public void LoadTyped()
    {
        for (int key = 0; key < Keys; key++)
        {
            _typed!.UpsertAsync(key, _value).AsTask().GetAwaiter().GetResult();
        }

        _next = 0;
    }

    [IterationSetup(Target = nameof(Dictionary_Delete))]
    public void LoadDictionary()
    {
        for (int key = 0; key < Keys; key++)
        {
            _dictionary[key] = _value;
        }

        _next = 0;
    }

    [Benchmark(Baseline = true)]
    public bool Raw_Delete() => Found(_raw!.Delete(_keyBytes[_next++]));

    /// <summary>
    /// Raw FASTER through its asynchronous read-modify-write, the call the engine makes (<see cref="PinnedRecord.DeleteAsync"/>):
    /// how much of the engine's time over <see cref="Raw_Delete"/> is FASTER's own asynchronous API. That API boxes the
    /// session's callbacks at every call, 24 bytes; the synchronous one would not, but it blocks its thread when the log
    /// must wait for a page flush to make room for the tombstone, so the engine does not use it for writes.
    /// </summary>
    [Benchmark]
    public async ValueTask<bool> RawAsync_Delete()
    {
        var result = await PinnedRecord.DeleteAsync(_raw!.Session, _keyBytes[_next++]).ConfigureAwait(false);
        while (result.Status.IsPending)
        {
            result = await result.CompleteAsync().ConfigureAwait(false);
        }

        return Found(result.Status.Found);
    }

    [Benchmark]
    public ValueTask<bool> Engine_Delete()
    {
        ValueTask<bool> deleting = _engine!.DeleteAsync(_keyBytes[_next++]);
        if (deleting.IsCompletedSuccessfully)
        {
            Found(deleting.Result);
        }

        return deleting;
    }

    [Benchmark]
    public ValueTask<KeyStatus> Typed_Delete()
    {
        ValueTask<KeyStatus> deleting = _typed!.DeleteAsync(_next++);
        if (deleting.IsCompletedSuccessfully)
        {
            Found(deleting.Result == KeyStatus.Found);
        }

        return deleting;
    }

    [Benchmark]
    public bool Dictionary_Delete() => Found(_dictionary.TryRemove(_next++, out _));

    private static bool Found(bool found) =>
        found ? true : throw new InvalidOperationException("A delete found no live record; the stores would not do like work.");
}
