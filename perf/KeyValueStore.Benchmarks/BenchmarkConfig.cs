using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

namespace KeyValueStore.Benchmarks;

/// <summary>The one configuration every benchmark runs with.</summary>
/// <remarks>
/// In-process: BenchmarkDotNet 0.14 (the newest the registry serves) predates .NET 10 and cannot
/// generate a child project for it. In-process runs also let columns read results the benchmarks
/// record in static state (see <see cref="Compaction.DiskPerLiveByteColumn"/>).
/// </remarks>
internal sealed class BenchmarkConfig : ManualConfig
{
    /// <summary>Creates the configuration.</summary>
    /// <param name="withSuiteJob">
    /// Whether to add the suite's own job (in-process, 1 warmup and 5 measured iterations of one invocation). False
    /// when the command line names a job with <c>--job</c>: BenchmarkDotNet runs a command-line job beside the
    /// configuration's jobs, not instead of them, so without this a dry run would also run every benchmark in full.
    /// </param>
    public BenchmarkConfig(bool withSuiteJob = true)
    {
        if (withSuiteJob)
        {
            AddJob(Job.Default
                .WithToolchain(InProcessEmitToolchain.Instance)
                .WithWarmupCount(1)
                .WithIterationCount(5)
                .WithInvocationCount(1)
                .WithUnrollFactor(1));
        }

        AddDiagnoser(MemoryDiagnoser.Default);
        AddExporter(MarkdownExporter.GitHub);
        AddExporter(CsvExporter.Default);
        AddColumnProvider(DefaultColumnProviders.Instance);
        AddLogger(BenchmarkDotNet.Loggers.ConsoleLogger.Default);
        WithOptions(ConfigOptions.JoinSummary);
    }
}
