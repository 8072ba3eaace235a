using System.Collections.Generic;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>LLFIO's benchmark with durability: every insert is durable when it completes (ours in Commit mode, SQLite FULL, RocksDB with synced writes).</summary>
public class LlfioDurableBenchmarks : LlfioWorkload
{
    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = "typed-commit";

    public static IEnumerable<string> Stores() => StoreNames.LlfioDurable();

    protected override string StoreName => Store;

    protected override int Records => BenchSize.Ops(BenchSize.LlfioDurableRecords);

    [Benchmark(OperationsPerInvoke = BenchSize.LlfioDurableRecords)]
    public Task Inserts() => InsertAll();

    [Benchmark(OperationsPerInvoke = BenchSize.LlfioDurableRecords)]
    public Task<long> Fetch1Thread() => FetchAll(1);

    [Benchmark(OperationsPerInvoke = BenchSize.LlfioDurableRecords)]
    public Task<long> Fetch2Threads() => FetchAll(2);
}
