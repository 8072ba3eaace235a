using System.Collections.Generic;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// Deletes through the adapter: 20,000 records of 16 bytes are loaded before each iteration (not measured), and the
/// iteration deletes every one of them, in key order, one thread, each awaited. Returns how many deletes found a value (a store that cannot tell
/// reports per its backend's remarks). The FASTER stores get 16 MB of log memory, so the set stays in memory.
/// </summary>
public class DeleteBenchmarks
{
    private const int ValueSize = 16;
    private const long LogMemoryBytes = 1L << 24;

    private byte[] _value = [];
    private BenchStore? _store;

    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = StoreNames.Ours;

    public static IEnumerable<string> Stores() => StoreNames.NonDurable();

    [GlobalSetup]
    public void Open()
    {
        _value = Values.Incompressible(ValueSize);
        _store = BenchStore.Open(Store, BenchSize.Ops(BenchSize.DeleteOperations), ValueSize, LogMemoryBytes);
    }

    [GlobalCleanup]
    public void Close() => _store?.DisposeAsync().AsTask().GetAwaiter().GetResult();

    [IterationSetup]
    public void Load() => _store!.FillAsync(BenchSize.Ops(BenchSize.DeleteOperations), _value).GetAwaiter().GetResult();

    [Benchmark(OperationsPerInvoke = BenchSize.DeleteOperations)]
    public async Task<int> Deletes()
    {
        byte[] key = new byte[RecordCodec.KeySize];
        int count = BenchSize.Ops(BenchSize.DeleteOperations);
        int found = 0;
        for (int id = 0; id < count; id++)
        {
            RecordCodec.WriteKey(key, id);
            found += await _store!.Backend.DeleteAsync(key).ConfigureAwait(false) ? 1 : 0;
        }

        return found;
    }
}
