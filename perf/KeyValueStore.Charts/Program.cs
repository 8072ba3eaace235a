using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using KeyValueStore.Charts;

// Charts and tables of the peer benchmarks from BenchmarkDotNet's CSV reports:
//   dotnet run -c Release --project perf/KeyValueStore.Charts -- BenchmarkDotNet.Artifacts/results docs/benchmarks
// reads every *-report.csv in the first directory (or one file) and writes, per workload (benchmark class with a
// Store parameter), <workload>.png and <workload>.md into the second.
if (args.Length != 2)
{
    Console.Error.WriteLine("usage: KeyValueStore.Charts <results directory or report.csv> <output directory>");
    return 2;
}

string[] reports = File.Exists(args[0])
    ? [args[0]]
    : Directory.Exists(args[0]) ? Directory.GetFiles(args[0], "*-report.csv") : [];
if (reports.Length == 0)
{
    Console.Error.WriteLine($"error: no *-report.csv at {args[0]}.");
    return 1;
}

Directory.CreateDirectory(args[1]);

// A later report of the same case replaces an earlier one (reports are named by time, so sorting orders them).
var latest = new Dictionary<(string Workload, string Group, string Store), BenchmarkRow>();
foreach (string report in reports.Order(StringComparer.Ordinal))
{
    foreach (BenchmarkRow row in BenchmarkCsv.Read(report))
    {
        latest[(row.Workload, row.Group, row.Store)] = row;
    }
}

foreach (IGrouping<string, BenchmarkRow> workload in latest.Values.GroupBy(row => row.Workload).OrderBy(g => g.Key, StringComparer.Ordinal))
{
    List<BenchmarkRow> rows = workload.OrderBy(row => StoreStyle.Rank(row.Store)).ThenBy(row => row.Store, StringComparer.Ordinal).ToList();
    string png = Path.Combine(args[1], workload.Key + ".png");
    string markdown = Path.Combine(args[1], workload.Key + ".md");
    ChartWriter.Write(workload.Key, rows, png);
    File.WriteAllText(markdown, TableWriter.Write(workload.Key, rows));
    Console.WriteLine($"{workload.Key}: {rows.Count} cases -> {png}, {markdown}");
}

return 0;
