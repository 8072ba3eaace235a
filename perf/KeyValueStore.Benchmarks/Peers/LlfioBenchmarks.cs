using System.Collections.Generic;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>LLFIO's benchmark without durability: the stores that do not sync per write (see <see cref="LlfioWorkload"/>).</summary>
public class LlfioBenchmarks : LlfioWorkload
{
    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = StoreNames.Ours;

    public static IEnumerable<string> Stores() => StoreNames.NonDurable();

    protected override string StoreName => Store;

    protected override int Records => BenchSize.Ops(BenchSize.LlfioRecords);

    [Benchmark(OperationsPerInvoke = BenchSize.LlfioRecords)]
    public Task Inserts() => InsertAll();

    [Benchmark(OperationsPerInvoke = BenchSize.LlfioRecords)]
    public Task<long> Fetch1Thread() => FetchAll(1);

    [Benchmark(OperationsPerInvoke = BenchSize.LlfioRecords)]
    public Task<long> Fetch2Threads() => FetchAll(2);
}
