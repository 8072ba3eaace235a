using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Text;
using System.Threading.Tasks;

namespace KeyValueStore.Benchmarks.Compaction;

/// <summary>
/// Runs the overwrite workload round after round, with compaction off and with the scheduled
/// compactor, and prints disk bytes per live byte and upsert throughput after each round: how disk
/// use evolves over time, which a BenchmarkDotNet mean cannot show.
/// </summary>
internal static class DiskUsageTimeline
{
    public static async Task<int> RunAsync(ReadOnlyMemory<string> args)
    {
        int rounds = 40, keys = 10_000, valueSize = 1024, rate = 0;
        string? csvPath = null;
        for (int i = 0; i + 1 < args.Length; i += 2)
        {
            string value = args.Span[i + 1];
            switch (args.Span[i])
            {
                case "--rounds": rounds = int.Parse(value, CultureInfo.InvariantCulture); break;
                case "--keys": keys = int.Parse(value, CultureInfo.InvariantCulture); break;
                case "--value-size": valueSize = int.Parse(value, CultureInfo.InvariantCulture); break;
                case "--rate": rate = int.Parse(value, CultureInfo.InvariantCulture); break;
                case "--csv": csvPath = value; break;
                default:
                    Console.Error.WriteLine($"Unknown option '{args.Span[i]}'. Usage: disk-timeline [--rounds N] [--keys N] [--value-size BYTES] [--rate UPSERTS_PER_S] [--csv FILE]");
                    return 2;
            }
        }

        var csv = new StringBuilder("mode,rate,round,upserts,elapsed_s,round_upserts_per_s,disk_bytes,live_bytes,disk_per_live\n");
        Console.WriteLine($"{keys} keys, {valueSize}-byte values, {rounds} rounds; every round overwrites every key once; "
            + (rate > 0 ? $"writes paced at {rate} upserts/s." : "writes unpaced."));
        Console.WriteLine("| Compaction | Round | Upserts | Elapsed (s) | Round upserts/s | Disk (MB) | Disk/Live |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|");
        foreach (CompactionMode mode in new[] { CompactionMode.Off, CompactionMode.Scheduled })
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
                double ratio = (double)disk / workload.LiveBytes;
                long upserts = (long)(round + 1) * keys;
                string line = string.Create(CultureInfo.InvariantCulture,
                    $"| {mode} | {round + 1} | {upserts} | {total.Elapsed.TotalSeconds:0.00} | {keys / roundSeconds:0} | {disk / 1048576.0:0.0} | {ratio:0.00} |");
                if (round % 5 == 4 || round == rounds - 1)
                {
                    Console.WriteLine(line);
                }

                csv.Append(CultureInfo.InvariantCulture, $"{mode},{rate},{round + 1},{upserts},{total.Elapsed.TotalSeconds:0.000},{keys / roundSeconds:0},{disk},{workload.LiveBytes},{ratio:0.000}\n");
            }
        }

        if (csvPath is not null)
        {
            await File.WriteAllTextAsync(csvPath, csv.ToString()).ConfigureAwait(false);
        }

        return 0;
    }
}
