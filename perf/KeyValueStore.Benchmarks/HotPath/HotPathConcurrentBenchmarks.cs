using System;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.Engine;
using KeyValueStore.Storage;

namespace KeyValueStore.Benchmarks.HotPath;

/// <summary>
/// Issue 19's allocation target at eight concurrent tasks: in-memory upserts, reads and deletes of the engine and the
/// typed store, each of <see cref="Tasks"/> tasks on keys of its own, the time and allocation reported per operation.
/// </summary>
/// <remarks>
/// <para>
/// Every store is loaded with <see cref="Tasks"/> × <see cref="OperationsPerTask"/> keys before measuring; an invocation
/// starts the tasks on the thread pool, each runs its operations one after another on its keys, and the invocation
/// ends when all have. Keys of different tasks may share a key stripe, so a write sometimes waits for another's (the
/// waiting path's pooled state machines are part of what is measured). A delete must find its key, so the delete
/// category's operation is a pair: a delete of a live key, then the upsert that writes it back. What an invocation's
/// tasks allocate (a few hundred bytes) is spread over its 8,192 operations. A typed read's allocation includes the
/// value it returns, a 16-byte array (40 bytes), which issue 19 excludes.
/// </para>
/// <para>
/// <c>dotnet run -c Release --project perf/KeyValueStore.Benchmarks -- --filter '*HotPathConcurrent*' --job Short --inProcess</c>
/// </para>
/// </remarks>
[Config(typeof(InMemoryBenchmarkStores.PerOperationConfig))]
public class HotPathConcurrentBenchmarks
{
    private const int Tasks = 8;
    private const int OperationsPerTask = 1024;
    private const int Operations = Tasks * OperationsPerTask;
    private const int ValueSize = 16;

    private readonly Task[] _running = new Task[Tasks];
    private HotPathStores? _stores;
    private byte[][] _keyBytes = [];
    private byte[] _value = [];
    private FasterRecordStore? _engine;
    private MixedStorageKVStore<long, byte[]>? _typed;

    [GlobalSetup]
    public async Task OpenStoresAsync()
    {
        _stores = HotPathStores.Open("kvstore-bench-hotpath-concurrent", Operations, ValueSize);
        (_keyBytes, _value, _engine, _typed) = (_stores.KeyBytes, _stores.Value, _stores.Engine!, _stores.Typed!);
        for (int key = 0; key < Operations; key++)
        {
            await _engine.UpsertAsync(_keyBytes[key], _value).ConfigureAwait(false);
            await _typed.UpsertAsync(key, _value).ConfigureAwait(false);
        }
    }

    [GlobalCleanup]
    public Task CloseStoresAsync() => _stores?.CloseAsync() ?? Task.CompletedTask;

    [BenchmarkCategory("Upsert"), Benchmark(OperationsPerInvoke = Operations)]
    public Task Engine_Upsert() => OnEveryTask(async first =>
    {
        for (int key = first; key < first + OperationsPerTask; key++)
        {
            await _engine!.UpsertAsync(_keyBytes[key], _value).ConfigureAwait(false);
        }
    });

    [BenchmarkCategory("Upsert"), Benchmark(OperationsPerInvoke = Operations)]
    public Task Typed_Upsert() => OnEveryTask(async first =>
    {
        for (int key = first; key < first + OperationsPerTask; key++)
        {
            await _typed!.UpsertAsync(key, _value).ConfigureAwait(false);
        }
    });

    [BenchmarkCategory("Read"), Benchmark(OperationsPerInvoke = Operations)]
    public Task Engine_Read() => OnEveryTask(async first =>
    {
        for (int key = first; key < first + OperationsPerTask; key++)
        {
            (bool found, PooledBuffer value) = await _engine!.ReadAsync(_keyBytes[key]).ConfigureAwait(false);
            value.Return();
            Found(found);
        }
    });

    [BenchmarkCategory("Read"), Benchmark(OperationsPerInvoke = Operations)]
    public Task Typed_Read() => OnEveryTask(async first =>
    {
        for (int key = first; key < first + OperationsPerTask; key++)
        {
            Found((await _typed!.ReadAsync(key).ConfigureAwait(false)).Status == KeyStatus.Found);
        }
    });

    /// <summary>A delete of a live key, then the upsert that writes it back: one operation of this category.</summary>
    [BenchmarkCategory("DeleteAndUpsert"), Benchmark(OperationsPerInvoke = Operations)]
    public Task Engine_DeleteAndUpsert() => OnEveryTask(async first =>
    {
        for (int key = first; key < first + OperationsPerTask; key++)
        {
            Found(await _engine!.DeleteAsync(_keyBytes[key]).ConfigureAwait(false));
            await _engine.UpsertAsync(_keyBytes[key], _value).ConfigureAwait(false);
        }
    });

    /// <summary>A delete of a live key, then the upsert that writes it back: one operation of this category.</summary>
    [BenchmarkCategory("DeleteAndUpsert"), Benchmark(OperationsPerInvoke = Operations)]
    public Task Typed_DeleteAndUpsert() => OnEveryTask(async first =>
    {
        for (int key = first; key < first + OperationsPerTask; key++)
        {
            Found(await _typed!.DeleteAsync(key).ConfigureAwait(false) == KeyStatus.Found);
            await _typed.UpsertAsync(key, _value).ConfigureAwait(false);
        }
    });

    private static void Found(bool found)
    {
        if (!found)
        {
            throw new InvalidOperationException("An operation found no live record for a loaded key; the stores would not do like work.");
        }
    }

    /// <summary>Runs <paramref name="operations"/> on each task, given the first of its keys, and completes when all have.</summary>
    private Task OnEveryTask(Func<int, Task> operations)
    {
        for (int task = 0; task < Tasks; task++)
        {
            int first = task * OperationsPerTask;
            _running[task] = Task.Run(() => operations(first));
        }

        return Task.WhenAll(_running);
    }
}
