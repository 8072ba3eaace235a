using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// Data ten times larger than the store's memory: 1 KB records, ten times the FASTER stores' 16 MB of log memory
/// (163,840 records, 160 MB), then random reads of loaded keys, uniform or scrambled Zipfian (theta 0.99), on 8
/// concurrent tasks so that reads from disk can overlap. The other stores keep their own cache settings; every store
/// reads through the operating system's page cache (see docs/benchmarks.md).
/// </summary>
public class BeyondMemoryBenchmarks
{
    private const int ValueSize = 1024;
    private const int Concurrency = 8;

    private BenchStore? _store;

    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = StoreNames.Ours;

    public static IEnumerable<string> Stores() => StoreNames.NonDurableWithLiteDb();

    /// <summary>Gets or sets the key distribution: Uniform or Zipfian (a <see cref="KeyDistribution"/> name).</summary>
    [Params("Uniform", "Zipfian")]
    public string Distribution { get; set; } = "Uniform";

    [GlobalSetup]
    public void Load()
    {
        _store = BenchStore.Open(Store, BenchSize.BeyondMemoryRecords, ValueSize, BenchSize.BeyondMemoryLogBytes);
        _store.FillAsync(BenchSize.BeyondMemoryRecords, Values.Incompressible(ValueSize)).GetAwaiter().GetResult();
    }

    [GlobalCleanup]
    public void Close() => _store?.DisposeAsync().AsTask().GetAwaiter().GetResult();

    [Benchmark(OperationsPerInvoke = BenchSize.BeyondMemoryReads)]
    public Task Reads() => Workers.RunAsync(Concurrency, BenchSize.Ops(BenchSize.BeyondMemoryReads), async (worker, count) =>
    {
        var random = SplitMix64.ForWorker(Environment.TickCount64, worker);
        IKeyChooser chooser = KeyChoosers.Create(Enum.Parse<KeyDistribution>(Distribution), BenchSize.BeyondMemoryRecords);
        byte[] key = new byte[RecordCodec.KeySize];
        byte[] destination = new byte[ValueSize];
        for (int i = 0; i < count; i++)
        {
            RecordCodec.WriteKey(key, chooser.Next(ref random, BenchSize.BeyondMemoryRecords));
            if (await _store!.Backend.ReadAsync(key, destination).ConfigureAwait(false) < 0)
            {
                throw new InvalidOperationException($"{Store} lost a loaded key.");
            }
        }
    });
}
