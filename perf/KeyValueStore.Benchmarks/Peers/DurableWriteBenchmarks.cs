using System.Collections.Generic;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// Durable writes under concurrency: 64 tasks upsert 256-byte values, each write durable when it completes (ours in
/// Commit mode, whose group commit lets concurrent writers share a flush; SQLite FULL; RocksDB with synced writes;
/// LiteDB, whose commit returns before its background writer syncs the log: not durable on return, see the litedb backend). Each worker owns a range of keys; an invocation overwrites the
/// keys the previous one wrote, so the store stays the same size.
/// </summary>
public class DurableWriteBenchmarks
{
    private const int ValueSize = 256;

    private byte[] _value = [];
    private BenchStore? _store;

    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = "typed-commit";

    public static IEnumerable<string> Stores() => StoreNames.Durable();

    [GlobalSetup]
    public void Open()
    {
        _value = Values.Incompressible(ValueSize);
        _store = BenchStore.Open(Store, BenchSize.DurableOperations, ValueSize, 1L << 24);
    }

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
            for (int i = 0; i < count; i++)
            {
                RecordCodec.WriteKey(key, ((long)worker * share) + i);
                await _store!.Backend.UpsertAsync(key, _value).ConfigureAwait(false);
            }
        });
    }
}
