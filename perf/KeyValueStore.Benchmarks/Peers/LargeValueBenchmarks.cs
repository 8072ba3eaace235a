using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// 64 KB values, compressible (repeated JSON-like text, which LZ4 shrinks) or incompressible (pseudo-random bytes):
/// 1,000 upserts of new keys into an empty store, then 1,000 reads of them, one thread, each awaited. Ours compresses
/// values of 1 KB and more with LZ4 and keeps the result when it is smaller; raw FASTER and the peers store the bytes
/// as given. The FASTER stores get 256 MB of log memory, so the 64 MB set stays in memory.
/// </summary>
public class LargeValueBenchmarks
{
    private const int ValueSize = 64 * 1024;
    private const long LogMemoryBytes = 1L << 28;

    private byte[] _value = [];
    private BenchStore? _store;

    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = StoreNames.Ours;

    public static IEnumerable<string> Stores() => StoreNames.NonDurableWithLiteDb();

    [Params(true, false)]
    public bool Compressible { get; set; }

    [IterationSetup(Target = nameof(Upserts))]
    public void OpenEmpty() => Open();

    [IterationCleanup(Target = nameof(Upserts))]
    public void CloseAfterUpserts() => Close();

    [GlobalSetup(Target = nameof(Reads))]
    public void OpenLoaded()
    {
        Open();
        _store!.FillAsync(BenchSize.LargeValueRecords, _value).GetAwaiter().GetResult();
    }

    [GlobalCleanup(Target = nameof(Reads))]
    public void CloseAfterReads() => Close();

    [Benchmark(OperationsPerInvoke = BenchSize.LargeValueOperations)]
    public Task Upserts() => _store!.InsertOneByOneAsync(BenchSize.LargeValueRecords, _value);

    [Benchmark(OperationsPerInvoke = BenchSize.LargeValueOperations)]
    public async Task<long> Reads()
    {
        byte[] key = new byte[RecordCodec.KeySize];
        byte[] destination = new byte[ValueSize];
        long bytes = 0;
        for (int id = 0; id < BenchSize.LargeValueRecords; id++)
        {
            RecordCodec.WriteKey(key, id);
            int length = await _store!.Backend.ReadAsync(key, destination).ConfigureAwait(false);
            bytes += length >= 0 ? length : throw new InvalidOperationException($"{Store} lost key {id}.");
        }

        return bytes;
    }

    private void Open()
    {
        _value = Compressible ? Values.Compressible(ValueSize) : Values.Incompressible(ValueSize);
        _store = BenchStore.Open(Store, BenchSize.LargeValueRecords, ValueSize, LogMemoryBytes);
    }

    private void Close()
    {
        _store?.DisposeAsync().AsTask().GetAwaiter().GetResult();
        _store = null;
    }
}
