using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;

namespace KeyValueStore.Benchmarks.Compaction;

/// <summary>
/// Upsert throughput of an overwrite-heavy workload with compaction off and with the store's own
/// compactor running beside it, and what each leaves on disk (the Disk/Live column).
/// </summary>
[Config(typeof(Config))]
public class CompactionThroughputBenchmarks
{
    private const int Keys = 10_000;
    private const int ValueSize = 1024;
    private const int Rounds = 20;

    private OverwriteWorkload? _workload;

    [Params(CompactionMode.Off, CompactionMode.Scheduled)]
    public CompactionMode Compaction { get; set; }

    [IterationSetup]
    public void OpenStore() => _workload = new OverwriteWorkload(Keys, ValueSize, BenchmarkStoreOptions.For(Compaction));

    /// <summary>200,000 upserts of 1 KB values over 10,000 keys; time per upsert.</summary>
    [Benchmark(OperationsPerInvoke = Keys * Rounds)]
    public async Task OverwriteRounds()
    {
        for (int round = 0; round < Rounds; round++)
        {
            await _workload!.RunRoundAsync(round).ConfigureAwait(false);
        }
    }

    [IterationCleanup]
    public void CloseStore()
    {
        DiskPerLiveByteColumn.Record(Compaction, (double)_workload!.DiskBytes() / _workload.LiveBytes);
        _workload.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }

    private sealed class Config : BenchmarkDotNet.Configs.ManualConfig
    {
        public Config() => AddColumn(new DiskPerLiveByteColumn());
    }
}
