using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using KeyValueStore.Benchmarks;
using KeyValueStore.Benchmarks.Compaction;
using KeyValueStore.Benchmarks.Recovery;

// Two kinds of measurement live here:
//   dotnet run -c Release --project perf/KeyValueStore.Benchmarks -- --filter '*'   BenchmarkDotNet suites
//   dotnet run -c Release --project perf/KeyValueStore.Benchmarks -- disk-timeline  disk use over time, as a table
//   dotnet run -c Release --project perf/KeyValueStore.Benchmarks -- reopen         a durable store's open time against one read of its log
//   dotnet run -c Release --project perf/KeyValueStore.Benchmarks -- copy-rate      compaction's two ways of copying, timed alone
if (args.Length > 0 && args[0] == "disk-timeline")
{
    return await DiskUsageTimeline.RunAsync(args.AsMemory(1)).ConfigureAwait(false);
}

if (args.Length > 0 && args[0] == "reopen")
{
    return await ReopenTime.RunAsync(args.AsMemory(1)).ConfigureAwait(false);
}

if (args.Length > 0 && args[0] == "copy-rate")
{
    return await CopyRate.RunAsync(args.AsMemory(1)).ConfigureAwait(false);
}

// A job named on the command line (--job Dry, for example) replaces the suite's own job rather than running beside it.
bool jobOnCommandLine = args.Any(arg => arg is "--job" or "-j" || arg.StartsWith("--job=", StringComparison.Ordinal));
IEnumerable<Summary> summaries = BenchmarkSwitcher.FromAssembly(typeof(BenchmarkConfig).Assembly).Run(args, new BenchmarkConfig(withSuiteJob: !jobOnCommandLine));
return BenchmarkExitCode.Of(summaries.ToArray(), args);
