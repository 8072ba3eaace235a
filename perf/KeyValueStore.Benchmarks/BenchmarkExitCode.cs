using System;
using System.Collections.Generic;
using System.Linq;
using BenchmarkDotNet.Reports;

namespace KeyValueStore.Benchmarks;

/// <summary>
/// The process's exit code after a BenchmarkDotNet run, so that CI notices a broken benchmark: BenchmarkDotNet reports
/// a benchmark that threw (in its setup or its body) in the summary and still returns normally.
/// </summary>
internal static class BenchmarkExitCode
{
    /// <summary>0 when every benchmark ran; 1 when one failed or a validator refused the run, or when a --filter matched none.</summary>
    public static int Of(IReadOnlyList<Summary> summaries, IReadOnlyList<string> args)
    {
        bool failed = summaries.Any(summary => summary.HasCriticalValidationErrors || summary.Reports.Any(report => !report.Success));
        bool filteredToNothing = args.Any(IsFilter) && !summaries.Any(summary => summary.Reports.Length > 0);
        if (filteredToNothing)
        {
            Console.Error.WriteLine("error: --filter matched no benchmark.");
        }

        return failed || filteredToNothing ? 1 : 0;
    }

    private static bool IsFilter(string arg) => arg is "--filter" or "-f" || arg.StartsWith("--filter=", StringComparison.Ordinal);
}
