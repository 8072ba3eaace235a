using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// Durable writes under concurrency: 64 tasks upsert 256-byte values, each write durable when it completes (ours in
/// Commit mode, whose group commit lets concurrent writers share a flush; SQLite FULL; RocksDB with synced writes;
/// LiteDB, whose commit returns before its background writer syncs the log: not durable on return, see the litedb backend). Each worker owns a range of keys; an invocation overwrites the
/// keys the previous one wrote, so the store stays the same size, with values that change (<see cref="ChangingValue"/>).
/// </summary>
public class DurableWriteBenchmarks
{
    private const int ValueSize = 256;

    private ChangingValue[] _values = [];
    private BenchStore? _store;

    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = "typed-commit";

    public static IEnumerable<string> Stores() => StoreNames.Durable();

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
    public Task Upserts64Writers()
    {
        int operations = BenchSize.Ops(BenchSize.DurableOperations);
        int share = operations / BenchSize.DurableWriters;
        return Workers.RunAsync(BenchSize.DurableWriters, operations, async (worker, count) =>
        {
            byte[] key = new byte[RecordCodec.KeySize];
            ChangingValue value = _values[worker];
            for (int i = 0; i < count; i++)
            {
                RecordCodec.WriteKey(key, ((long)worker * share) + i);
                await _store!.Backend.UpsertAsync(key, value.Next()).ConfigureAwait(false);
            }
        });
    }
}
