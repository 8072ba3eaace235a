using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// Durable atomic batches: the durable write workload (<see cref="DurableWriteBenchmarks"/>) with each of the 64 tasks
/// writing its records in batches of 16 through the load test's <see cref="IBatchWriter"/>, durable when a batch
/// completes. Time and allocation are per record. Stores whose adapter has no batch writer are left out.
/// </summary>
public class DurableBatchBenchmarks
{
    private const int ValueSize = 256;

    private ChangingValue[] _values = [];
    private BenchStore? _store;

    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = "typed-commit";

    public static IEnumerable<string> Stores() => StoreNames.Durable().Where(WritesBatches);

    [GlobalSetup]
    public void Open()
    {
        byte[] value = Values.Incompressible(ValueSize);
        _values = Enumerable.Range(0, BenchSize.DurableWriters).Select(worker => new ChangingValue(value, worker)).ToArray();
        _store = BenchStore.Open(Store, BenchSize.DurableOperations, ValueSize, 1L << 24);
    }

    /// <summary>Gets the store opened by <see cref="Open"/>, for tests to read back what a workload wrote.</summary>
    internal BenchStore? OpenedStore => _store;

    [GlobalCleanup]
    public void Close() => _store?.DisposeAsync().AsTask().GetAwaiter().GetResult();

    [Benchmark(OperationsPerInvoke = BenchSize.DurableOperations)]
    public Task Batches64Writers()
    {
        int operations = BenchSize.Ops(BenchSize.DurableOperations);
        int share = operations / BenchSize.DurableWriters;
        var writer = (IBatchWriter)_store!.Backend;
        return Workers.RunAsync(BenchSize.DurableWriters, operations, async (worker, count) =>
        {
            var batch = new List<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)>(BenchSize.DurableBatchSize);
            byte[][] keys = new byte[BenchSize.DurableBatchSize][];
            for (int k = 0; k < keys.Length; k++)
            {
                keys[k] = new byte[RecordCodec.KeySize];
            }

            for (int i = 0; i < count; i += BenchSize.DurableBatchSize)
            {
                // One buffer for the batch's writes: each key's bytes still differ from what it held before.
                byte[] value = _values[worker].Next();
                batch.Clear();
                for (int k = 0; k < BenchSize.DurableBatchSize && i + k < count; k++)
                {
                    RecordCodec.WriteKey(keys[k], ((long)worker * share) + i + k);
                    batch.Add((keys[k], value));
                }

                await writer.WriteBatchAsync(batch).ConfigureAwait(false);
            }
        });
    }

    /// <summary>Whether the named store's adapter writes atomic batches; opens it once, empty, to ask.</summary>
    private static bool WritesBatches(string name)
    {
        BenchStore store = BenchStore.Open(name, 1024, ValueSize, 1L << 20);
        try
        {
            return store.Backend is IBatchWriter;
        }
        finally
        {
            store.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }
}
