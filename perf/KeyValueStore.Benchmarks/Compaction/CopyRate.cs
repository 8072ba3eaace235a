using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Benchmarks.Compaction;

/// <summary>
/// How fast each of compaction's two ways copies a log with nothing else running: beside the writers
/// (<see cref="LiveRecordCopier"/>) and with the writers held (FASTER's lookup compaction, used under back-pressure).
/// Each way gets a store of its own, filled the same way: uniform upserts over a key range, so most of the log is
/// superseded; then the whole read-only region, to its last page boundary, is copied once and timed.
/// </summary>
/// <remarks>
/// A run whose log has no read-only page (too few keys: updates in the mutable region happen in place, so the log
/// stays within memory) has nothing to time; it fails with exit code 1 and says what to change, rather than print an
/// empty copy and a rate of nothing.
/// </remarks>
internal static class CopyRate
{
    private const int MemorySizeBits = 24;
    private const int MemoryMiB = (1 << MemorySizeBits) >> 20;

    public static async Task<int> RunAsync(ReadOnlyMemory<string> args)
    {
        int upserts = 300_000, keys = 100_000, valueSize = 1000;
        for (int i = 0; i < args.Length; i++)
        {
            switch (args.Span[i])
            {
                case "--upserts" when i + 1 < args.Length: upserts = int.Parse(args.Span[++i], CultureInfo.InvariantCulture); break;
                case "--keys" when i + 1 < args.Length: keys = int.Parse(args.Span[++i], CultureInfo.InvariantCulture); break;
                case "--value-size" when i + 1 < args.Length: valueSize = int.Parse(args.Span[++i], CultureInfo.InvariantCulture); break;
                default:
                    Console.Error.WriteLine($"Unknown option '{args.Span[i]}'. Usage: copy-rate [--upserts N] [--keys N] [--value-size BYTES]");
                    return 2;
            }
        }

        Console.WriteLine($"{upserts} uniform upserts over {keys} keys of {valueSize}-byte values; the read-only region copied once.");
        Console.WriteLine("| Way | Compacted (MiB) | Copied (MiB) | Time (ms) | Compacted MiB/s |");
        Console.WriteLine("|---|---:|---:|---:|---:|");
        double? beside = await MeasureAsync("beside the writers", writersHeld: false, upserts, keys, valueSize).ConfigureAwait(false);
        double? held = await MeasureAsync("writers held (FASTER's compaction)", writersHeld: true, upserts, keys, valueSize).ConfigureAwait(false);
        if (beside is null || held is null)
        {
            Console.Error.WriteLine(
                $"Nothing was copied: after {upserts} upserts over {keys} keys the log has no read-only page to compact (updates in "
                + $"its mutable region happen in place, so it stayed within the store's {MemoryMiB} MB of memory). Use more keys, so that "
                + $"the live data exceeds {MemoryMiB} MB: e.g. --keys 20000 with 1000-byte values.");
            return 1;
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"Writers held / beside the writers: {held / beside:0.00}x"));
        return 0;
    }

    /// <summary>Fills a store, copies its read-only region once and prints the row; null when that region is empty.</summary>
    private static async Task<double?> MeasureAsync(string label, bool writersHeld, int upserts, int keys, int valueSize)
    {
        string directory = Path.Combine(Path.GetTempPath(), "kvstore-copy-rate-" + Guid.NewGuid().ToString("N"));
        var options = new MixedStorageKVStoreOptions
        {
            LogDirectory = directory,
            PageSizeBits = 20,
            MemorySizeBits = MemorySizeBits,
            SegmentSizeBits = 28,
            IndexNumBuckets = 1 << 20,
            TimeBetweenLogCompactionsMS = -1,
        };
        try
        {
            await using FasterRecordStore store = StoreOpener.Open(StoreSettingsValidator.Validate(options), NullLogger.Instance);
            byte[] value = new byte[valueSize];
            var random = new Random(1);
            for (int i = 0; i < upserts; i++)
            {
                random.NextBytes(value.AsSpan(0, Math.Min(8, valueSize)));
                await store.UpsertAsync(BitConverter.GetBytes(random.Next(keys)), value).ConfigureAwait(false);
            }

            long begin = store.FasterKV.Log.BeginAddress;
            long until = store.FasterKV.Log.SafeReadOnlyAddress & ~((1L << options.PageSizeBits) - 1);
            if (until <= begin)
            {
                return null;
            }

            var timer = Stopwatch.StartNew();
            long copied = await store.CopyLiveRecordsAsync(begin, until, writersHeld).ConfigureAwait(false);
            timer.Stop();
            double compactedMiB = (until - begin) / 1048576.0;
            double rate = compactedMiB / timer.Elapsed.TotalSeconds;
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {label} | {compactedMiB:0.0} | {copied / 1048576.0:0.0} | {timer.ElapsedMilliseconds} | {rate:0} |"));
            return rate;
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
