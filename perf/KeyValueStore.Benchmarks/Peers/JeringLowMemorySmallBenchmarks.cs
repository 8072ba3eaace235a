using System.Collections.Generic;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>Jering's LowMemory benchmark (see <see cref="JeringLowMemoryWorkload"/>), LiteDB, whose single-write inserts run at about 1,000 per second here, with ours and SQLite beside it at the same counts: 10,000 inserts, 75,000 reads.</summary>
public class JeringLowMemorySmallBenchmarks : JeringLowMemoryWorkload
{
    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = StoreNames.Ours;

    public static IEnumerable<string> Stores() => StoreNames.SlowWriters();

    protected override string StoreName => Store;

    protected override int InsertCount => BenchSize.Ops(BenchSize.JeringSmallInserts);

    protected override int ReadCount => BenchSize.Ops(BenchSize.JeringReads);

    [Benchmark(OperationsPerInvoke = BenchSize.JeringSmallInserts)]
    public Task Inserts() => InsertAll();

    [Benchmark(OperationsPerInvoke = BenchSize.JeringReads)]
    public Task<long> Reads() => ReadAll();
}
