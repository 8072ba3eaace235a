using System.Collections.Generic;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>LLFIO's benchmark at 5,000 records, for LiteDB, whose single-write inserts run at about 1,000 per second here, with ours and SQLite beside it at the same count (see <see cref="LlfioWorkload"/>).</summary>
public class LlfioSmallBenchmarks : LlfioWorkload
{
    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = StoreNames.Ours;

    public static IEnumerable<string> Stores() => StoreNames.SlowWriters();

    protected override string StoreName => Store;

    protected override int Records => BenchSize.Ops(BenchSize.LlfioSmallRecords);

    [Benchmark(OperationsPerInvoke = BenchSize.LlfioSmallRecords)]
    public Task Inserts() => InsertAll();

    [Benchmark(OperationsPerInvoke = BenchSize.LlfioSmallRecords)]
    public Task<long> Fetch1Thread() => FetchAll(1);

    [Benchmark(OperationsPerInvoke = BenchSize.LlfioSmallRecords)]
    public Task<long> Fetch2Threads() => FetchAll(2);
}
