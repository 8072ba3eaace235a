using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Text;
using System.Threading.Tasks;

namespace KeyValueStore.Benchmarks.Compaction;

/// <summary>
/// Runs the overwrite workload round after round, with compaction off and with the scheduled
/// compactor, and prints disk bytes per live byte and upsert throughput after each round: how disk
/// use evolves over time, which a BenchmarkDotNet mean cannot show. With <c>--fail-above R</c> it is also the
/// disk-bound soak (scripts/disk-bound-soak.sh): it exits with 1 when, past its first quarter of rounds (at least five),
/// a round of the scheduled compactor ends with the disk over R times the live data.
/// </summary>
internal static class DiskUsageTimeline
{
    public static async Task<int> RunAsync(ReadOnlyMemory<string> args)
    {
        int rounds = 40, keys = 10_000, valueSize = 1024, rate = 0;
        double? failAbove = null;
        bool skipOff = false;
        string? csvPath = null;
        for (int i = 0; i < args.Length; i++)
        {
            switch (args.Span[i])
            {
                case "--rounds" when i + 1 < args.Length: rounds = int.Parse(args.Span[++i], CultureInfo.InvariantCulture); break;
                case "--keys" when i + 1 < args.Length: keys = int.Parse(args.Span[++i], CultureInfo.InvariantCulture); break;
                case "--value-size" when i + 1 < args.Length: valueSize = int.Parse(args.Span[++i], CultureInfo.InvariantCulture); break;
                case "--rate" when i + 1 < args.Length: rate = int.Parse(args.Span[++i], CultureInfo.InvariantCulture); break;
                case "--csv" when i + 1 < args.Length: csvPath = args.Span[++i]; break;
                case "--fail-above" when i + 1 < args.Length: failAbove = double.Parse(args.Span[++i], CultureInfo.InvariantCulture); break;
                case "--skip-off": skipOff = true; break;
                default:
                    Console.Error.WriteLine($"Unknown option '{args.Span[i]}', or its value is missing. Usage: disk-timeline [--rounds N] [--keys N] [--value-size BYTES] [--rate UPSERTS_PER_S] [--csv FILE] [--fail-above RATIO] [--skip-off]");
                    return 2;
            }
        }

        var csv = new StringBuilder("mode,rate,round,upserts,elapsed_s,round_upserts_per_s,disk_bytes,log_bytes,live_bytes,disk_per_live\n");
        Console.WriteLine($"{keys} keys, {valueSize}-byte values, {rounds} rounds; every round overwrites every key once; "
            + (rate > 0 ? $"writes paced at {rate} upserts/s." : "writes unpaced."));
        Console.WriteLine("| Compaction | Round | Upserts | Elapsed (s) | Round upserts/s | Disk (MB) | Log (MB) | Disk/Live |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|");
        int steadyFrom = Math.Max(5, rounds / 4);
        var overBound = new List<string>();
        foreach (CompactionMode mode in skipOff ? new[] { CompactionMode.Scheduled } : new[] { CompactionMode.Off, CompactionMode.Scheduled })
        {
            await using var workload = new OverwriteWorkload(keys, valueSize, BenchmarkStoreOptions.For(mode));
            var total = Stopwatch.StartNew();
            for (int round = 0; round < rounds; round++)
            {
                long roundStart = Stopwatch.GetTimestamp();
                await workload.RunRoundAsync(round).ConfigureAwait(false);
                double roundSeconds = Stopwatch.GetElapsedTime(roundStart).TotalSeconds;
                if (rate > 0)
                {
                    // Pace the writers: a round may not finish before its share of the target rate allows.
                    TimeSpan behind = TimeSpan.FromSeconds(((double)(round + 1) * keys / rate) - total.Elapsed.TotalSeconds);
                    if (behind > TimeSpan.Zero)
                    {
                        await Task.Delay(behind).ConfigureAwait(false);
                    }
                }

                long disk = workload.DiskBytes();
                long log = workload.Store.FasterKV.Log.TailAddress - workload.Store.FasterKV.Log.BeginAddress;
                double ratio = (double)disk / workload.LiveBytes;
                long upserts = (long)(round + 1) * keys;
                string line = string.Create(CultureInfo.InvariantCulture,
                    $"| {mode} | {round + 1} | {upserts} | {total.Elapsed.TotalSeconds:0.00} | {keys / roundSeconds:0} | {disk / 1048576.0:0.0} | {log / 1048576.0:0.0} | {ratio:0.00} |");
                bool over = mode == CompactionMode.Scheduled && round + 1 >= steadyFrom && ratio > failAbove;
                if (over)
                {
                    overBound.Add(line);
                }

                if (round % 5 == 4 || round == rounds - 1 || over)
                {
                    Console.WriteLine(line);
                }

                csv.Append(CultureInfo.InvariantCulture, $"{mode},{rate},{round + 1},{upserts},{total.Elapsed.TotalSeconds:0.000},{keys / roundSeconds:0},{disk},{log},{workload.LiveBytes},{ratio:0.000}\n");
            }
        }

        if (csvPath is not null)
        {
            await File.WriteAllTextAsync(csvPath, csv.ToString()).ConfigureAwait(false);
        }

        if (failAbove is double bound)
        {
            Console.WriteLine(rounds < steadyFrom
                ? $"Disk bound not checked: the bound applies from round {steadyFrom}, and the run had {rounds}."
                : overBound.Count == 0
                ? string.Create(CultureInfo.InvariantCulture, $"Disk bound held: no round from {steadyFrom} on ended over {bound:0.##} times the live data.")
                : string.Create(CultureInfo.InvariantCulture, $"Disk bound broken: {overBound.Count} rounds from {steadyFrom} on ended over {bound:0.##} times the live data (listed above)."));
            return overBound.Count == 0 ? 0 : 1;
        }

        return 0;
    }
}
