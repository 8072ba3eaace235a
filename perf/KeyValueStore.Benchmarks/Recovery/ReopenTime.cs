using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Benchmarks.Recovery;

/// <summary>
/// How long a durable store takes to open against how long one sequential read of its log takes (issue 18: reopening
/// must not read the log twice). Writes a Checkpoint-mode store through the public API, closes it, then times
/// <see cref="MixedStorageKVStore{TKey, TValue}.OpenAsync"/> (with one read, without the close) and a plain read of the
/// segment files, with the files in the page cache and, with --drop-caches (root on Linux), after dropping it: first
/// with the index checkpoint the store took, then with its files deleted, so that the open rebuilds the index from the
/// whole log as before index checkpoints.
/// </summary>
internal static class ReopenTime
{
    private const int Repeats = 5;

    public static async Task<int> RunAsync(ReadOnlyMemory<string> args)
    {
        int records = 1_000_000, valueSize = 1024;
        bool dropCaches = false;
        for (int i = 0; i < args.Length; i++)
        {
            switch (args.Span[i])
            {
                case "--records" when i + 1 < args.Length: records = int.Parse(args.Span[++i], CultureInfo.InvariantCulture); break;
                case "--value-size" when i + 1 < args.Length: valueSize = int.Parse(args.Span[++i], CultureInfo.InvariantCulture); break;
                case "--drop-caches": dropCaches = true; break;
                default:
                    Console.Error.WriteLine($"Unknown option '{args.Span[i]}'. Usage: reopen [--records N] [--value-size BYTES] [--drop-caches]");
                    return 2;
            }
        }

        string directory = Path.Combine(Path.GetTempPath(), "kvstore-reopen-" + Guid.NewGuid().ToString("N"));
        try
        {
            var options = new MixedStorageKVStoreOptions { LogDirectory = directory, Durability = DurabilityMode.Checkpoint, DeleteLogOnClose = false, MemorySizeBits = 26 };
            await WriteAsync(options, records, valueSize).ConfigureAwait(false);
            long logBytes = Directory.EnumerateFiles(directory, "*.log.*").Sum(path => new FileInfo(path).Length);
            long indexBytes = IndexCheckpointFiles(directory).Sum(path => new FileInfo(path).Length);
            Console.WriteLine($"{records} records of {valueSize} bytes, Checkpoint mode; segment files {logBytes / 1048576.0:0.0} MiB, index checkpoint {indexBytes / 1048576.0:0.0} MiB.");
            Console.WriteLine($"Medians of {Repeats} runs each.");
            Console.WriteLine("| Index | Page cache | Open and one read (s) | of which FASTER's recovery (s) | Sequential read of the segment files (s) | Ratio |");
            Console.WriteLine("|---|---|---:|---:|---:|---:|");
            foreach (bool withIndex in new[] { true, false })
            {
                foreach (bool drop in dropCaches ? new[] { false, true } : new[] { false })
                {
                    await PrintRowAsync(withIndex ? "index checkpoint" : "rebuilt from the log", drop ? "dropped" : "warm", options, records, directory, withIndex, drop).ConfigureAwait(false);
                }
            }

            return 0;
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    private static async Task WriteAsync(MixedStorageKVStoreOptions options, int records, int valueSize)
    {
        await using MixedStorageKVStore<long, byte[]> store = await MixedStorageKVStore<long, byte[]>.OpenAsync(options).ConfigureAwait(false);
        byte[] value = new byte[valueSize];
        new Random(1).NextBytes(value);
        await Parallel.ForAsync(0, 8, async (worker, _) =>
        {
            for (long key = worker; key < records; key += 8)
            {
                await store.UpsertAsync(key, value).ConfigureAwait(false);
            }
        }).ConfigureAwait(false);
    }

    private static async Task PrintRowAsync(string index, string label, MixedStorageKVStoreOptions options, int records, string directory, bool withIndex, bool drop)
    {
        if (drop && !DropPageCache())
        {
            Console.WriteLine($"| {index} | {label} | (cannot drop the page cache here: needs root on Linux) | | | |");
            return;
        }

        var runs = new List<(double Open, double Recovery, double Read)>();
        for (int run = 0; run < Repeats; run++)
        {
            if (!withIndex)
            {
                // Each open's close takes a new index checkpoint (the whole log would be replayed): delete it again.
                IndexCheckpointFiles(directory).ToList().ForEach(File.Delete);
            }

            if (drop)
            {
                DropPageCache();
            }

            runs.Add(await MeasureAsync(options, records, directory, drop).ConfigureAwait(false));
        }

        double open = Median(runs.Select(r => r.Open)), recovery = Median(runs.Select(r => r.Recovery)), read = Median(runs.Select(r => r.Read));
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {index} | {label} | {open:0.00} | {recovery:0.00} | {read:0.00} | {open / read:0.0} |"));
    }

    private static async Task<(double Open, double Recovery, double Read)> MeasureAsync(MixedStorageKVStoreOptions options, int records, string directory, bool drop)
    {
        var recovery = new RecoveryDurationLogger();
        var open = Stopwatch.StartNew();
        double openSeconds;
        await using (MixedStorageKVStore<long, byte[]> store = await MixedStorageKVStore<long, byte[]>.OpenAsync(options, recovery).ConfigureAwait(false))
        {
            if ((await store.ReadAsync(records - 1).ConfigureAwait(false)).Status != KeyStatus.Found)
            {
                throw new InvalidOperationException("The reopened store lost its last record.");
            }

            openSeconds = open.Elapsed.TotalSeconds;
        }

        if (drop)
        {
            DropPageCache();
        }

        var read = Stopwatch.StartNew();
        byte[] buffer = new byte[1 << 20];
        foreach (string path in Directory.EnumerateFiles(directory, "*.log.*").Order(StringComparer.Ordinal))
        {
            using FileStream file = File.OpenRead(path);
            while (file.Read(buffer) > 0)
            {
            }
        }

        return (openSeconds, recovery.Duration.TotalSeconds, read.Elapsed.TotalSeconds);
    }

    private static double Median(IEnumerable<double> values)
    {
        double[] sorted = values.Order().ToArray();
        return sorted[sorted.Length / 2];
    }

    private static IEnumerable<string> IndexCheckpointFiles(string directory) =>
        Directory.EnumerateFiles(directory, "*", SearchOption.AllDirectories).Where(path => path.Contains("index-checkpoints", StringComparison.Ordinal));

    /// <summary>Flushes dirty pages and drops the page cache; false where that is not permitted.</summary>
    private static bool DropPageCache()
    {
        try
        {
            using (var sync = Process.Start("sync"))
            {
                sync?.WaitForExit();
            }

            File.WriteAllText("/proc/sys/vm/drop_caches", "3");
            return true;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or System.ComponentModel.Win32Exception)
        {
            return false;
        }
    }

    /// <summary>Keeps the duration the store logs when FASTER has recovered its checkpoint (event 21), to split an open's time.</summary>
    private sealed class RecoveryDurationLogger : ILogger<MixedStorageKVStore<long, byte[]>>
    {
        private const int StoreRecoveredEvent = 21;

        public TimeSpan Duration { get; private set; }

        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (eventId.Id == StoreRecoveredEvent && state is IEnumerable<KeyValuePair<string, object?>> fields)
            {
                Duration = fields.Where(field => field.Key == "Duration").Select(field => (TimeSpan)field.Value!).Single();
            }
        }
    }
}
