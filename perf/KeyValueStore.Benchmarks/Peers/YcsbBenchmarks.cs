using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// YCSB's core workloads A (50% reads, 50% updates) and B (95% reads, 5% updates) over a loaded set of 1 KB records,
/// keys chosen by the load test's scrambled Zipfian chooser (YCSB's default, theta 0.99), at 1, 8 and 64 concurrent
/// tasks. An update overwrites the record's whole value. The FASTER stores get 256 MB of log memory, so the set
/// (50,000 records, about 50 MB) stays in memory.
/// </summary>
public class YcsbBenchmarks
{
    private const int ValueSize = 1024;
    private const long LogMemoryBytes = 1L << 28;

    private byte[] _value = [];
    private ChangingValue[] _updates = [];
    private BenchStore? _store;

    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = StoreNames.Ours;

    public static IEnumerable<string> Stores() => StoreNames.NonDurable();

    /// <summary>Gets or sets YCSB's workload letter: A or B.</summary>
    [Params("A", "B")]
    public string Workload { get; set; } = "A";

    [Params(1, 8, 64)]
    public int Concurrency { get; set; }

    [GlobalSetup]
    public void Load()
    {
        _value = Values.Incompressible(ValueSize);

        // Kept across invocations: a worker's count goes on, so no update repeats the bytes of an earlier one.
        _updates = Enumerable.Range(0, Concurrency).Select(worker => new ChangingValue(_value, worker)).ToArray();
        _store = BenchStore.Open(Store, BenchSize.YcsbRecords, ValueSize, LogMemoryBytes);
        _store.FillAsync(BenchSize.YcsbRecords, _value).GetAwaiter().GetResult();
    }

    [GlobalCleanup]
    public void Close() => _store?.DisposeAsync().AsTask().GetAwaiter().GetResult();

    [Benchmark(OperationsPerInvoke = BenchSize.YcsbOperations)]
    public Task Operations()
    {
        double readProportion = Workload == "A" ? 0.5 : 0.95;
        return Workers.RunAsync(Concurrency, BenchSize.Ops(BenchSize.YcsbOperations), async (worker, count) =>
        {
            var random = SplitMix64.ForWorker(Environment.TickCount64, worker);
            var chooser = new ScrambledZipfianChooser(BenchSize.YcsbRecords);
            byte[] key = new byte[RecordCodec.KeySize];
            byte[] destination = new byte[ValueSize];
            ChangingValue value = _updates[worker];
            for (int i = 0; i < count; i++)
            {
                RecordCodec.WriteKey(key, chooser.Next(ref random, BenchSize.YcsbRecords));
                if (random.NextDouble() < readProportion)
                {
                    if (await _store!.Backend.ReadAsync(key, destination).ConfigureAwait(false) < 0)
                    {
                        throw new InvalidOperationException($"{Store} lost a loaded key.");
                    }
                }
                else
                {
                    await _store!.Backend.UpsertAsync(key, value.Next()).ConfigureAwait(false);
                }
            }
        });
    }
}
