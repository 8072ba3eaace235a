using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;

namespace KeyValueStore.Charts;

/// <summary>
/// A workload's results as Markdown: every case and store with its time, rate and allocation per operation and its
/// ratio to ours; then one line per case with the ratios against each peer.
/// </summary>
internal static class TableWriter
{
    // The peers the summary compares with, in this order, and how its header names them.
    private static readonly (string Store, string Header)[] Peers =
    [
        ("sqlite", "× SQLite"),
        ("sqlite-full", "× SQLite FULL"),
        ("litedb", "× LiteDB"),
        ("rocksdb", "× RocksDB"),
        ("rocksdb-sync", "× RocksDB sync"),
        ("zonetree", "× ZoneTree"),
        ("memory", "× memory"),
    ];

    public static string Write(string workload, IReadOnlyList<BenchmarkRow> rows)
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"#### {workload}\n\n");
        text.Append("| Case | Store | Time per op | Error | Ops/s | Allocated per op | Time ÷ ours |\n");
        text.Append("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
        foreach (IGrouping<string, BenchmarkRow> group in rows.GroupBy(row => row.Group))
        {
            BenchmarkRow? ours = OursIn(group);
            foreach (BenchmarkRow row in group)
            {
                string store = StoreStyle.IsOurs(row.Store) ? $"**{row.Store}**" : row.Store;
                string ratio = ours is null ? "" : Ratio(row.MeanNanoseconds / ours.MeanNanoseconds);
                string error = row.ErrorNanoseconds is double e ? Time(e) : "NA";
                text.Append(CultureInfo.InvariantCulture,
                    $"| {group.Key} | {store} | {Time(row.MeanNanoseconds)} | {error} | {Rate(row.OperationsPerSecond)} | {Bytes(row.AllocatedBytes)} | {ratio} |\n");
            }
        }

        (string Store, string Header)[] present = Peers.Where(peer => rows.Any(row => row.Store == peer.Store)).ToArray();
        bool hasRaw = rows.Any(row => row.Store == "raw-faster");
        text.Append('\n');
        text.Append("Ratios per case: a peer's time per operation ÷ ours (above 1: ours is faster)");
        text.Append(hasRaw ? "; for raw FASTER, ours ÷ its (below 1.3 meets the target).\n\n" : ".\n\n");
        text.Append("| Case | Ours | Our time per op |");
        foreach ((_, string header) in present)
        {
            text.Append(CultureInfo.InvariantCulture, $" {header} |");
        }

        text.Append(hasRaw ? " ours ÷ raw FASTER |\n" : "\n");
        text.Append("| --- | --- | ---: |");
        text.Append(string.Concat(Enumerable.Repeat(" ---: |", present.Length + (hasRaw ? 1 : 0))));
        text.Append('\n');
        foreach (IGrouping<string, BenchmarkRow> group in rows.GroupBy(row => row.Group))
        {
            BenchmarkRow? ours = OursIn(group);
            if (ours is null)
            {
                continue;
            }

            text.Append(CultureInfo.InvariantCulture, $"| {group.Key} | {ours.Store} | {Time(ours.MeanNanoseconds)} |");
            foreach ((string peer, _) in present)
            {
                BenchmarkRow? row = group.FirstOrDefault(r => r.Store == peer);
                text.Append(CultureInfo.InvariantCulture, $" {(row is null ? "" : Ratio(row.MeanNanoseconds / ours.MeanNanoseconds))} |");
            }

            if (hasRaw)
            {
                BenchmarkRow? raw = group.FirstOrDefault(r => r.Store == "raw-faster");
                text.Append(CultureInfo.InvariantCulture, $" {(raw is null ? "" : Ratio(ours.MeanNanoseconds / raw.MeanNanoseconds))} |");
            }

            text.Append('\n');
        }

        return text.ToString();
    }

    private static BenchmarkRow? OursIn(IEnumerable<BenchmarkRow> group)
    {
        List<BenchmarkRow> rows = group.ToList();
        string? reference = StoreStyle.Reference(rows.Select(row => row.Store).ToList());
        return reference is null ? null : rows.First(row => row.Store == reference);
    }

    private static string Ratio(double ratio) => ratio.ToString(ratio >= 100 ? "0" : ratio >= 10 ? "0.0" : "0.00", CultureInfo.InvariantCulture);

    private static string Time(double ns) => ns switch
    {
        >= 1e9 => string.Create(CultureInfo.InvariantCulture, $"{ns / 1e9:0.00} s"),
        >= 1e6 => string.Create(CultureInfo.InvariantCulture, $"{ns / 1e6:0.00} ms"),
        >= 1e3 => string.Create(CultureInfo.InvariantCulture, $"{ns / 1e3:0.00} us"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{ns:0.0} ns"),
    };

    private static string Rate(double perSecond) => perSecond.ToString("N0", CultureInfo.InvariantCulture);

    private static string Bytes(double bytes) => bytes switch
    {
        0 => "0 B",
        >= 1024 * 1024 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (1024 * 1024):0.0} MB"),
        >= 10 * 1024 => string.Create(CultureInfo.InvariantCulture, $"{bytes / 1024:0.0} KB"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{bytes:0} B"),
    };
}
