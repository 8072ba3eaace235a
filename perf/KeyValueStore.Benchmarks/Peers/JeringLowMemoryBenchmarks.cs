using System.Collections.Generic;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>Jering's LowMemory benchmark (see <see cref="JeringLowMemoryWorkload"/>), the reference's counts: 350,000 inserts, 75,000 reads.</summary>
public class JeringLowMemoryBenchmarks : JeringLowMemoryWorkload
{
    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = StoreNames.Ours;

    public static IEnumerable<string> Stores() => StoreNames.JeringPeers();

    protected override string StoreName => Store;

    protected override int InsertCount => BenchSize.Ops(BenchSize.JeringInserts);

    protected override int ReadCount => BenchSize.Ops(BenchSize.JeringReads);

    [Benchmark(OperationsPerInvoke = BenchSize.JeringInserts)]
    public Task Inserts() => InsertAll();

    [Benchmark(OperationsPerInvoke = BenchSize.JeringReads)]
    public Task<long> Reads() => ReadAll();
}
