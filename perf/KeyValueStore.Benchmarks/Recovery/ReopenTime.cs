using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.Benchmarks.Recovery;

/// <summary>
/// How long a durable store takes to open against how long one sequential read of its log takes (issue 18: reopening
/// must not read the log twice). Writes a Checkpoint-mode store through the public API, closes it, then times
/// <see cref="MixedStorageKVStore{TKey, TValue}.OpenAsync"/> (with one read) and a plain read of the segment files, with
/// the files in the page cache and, with --drop-caches (root on Linux), after dropping it.
/// </summary>
internal static class ReopenTime
{
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
            Console.WriteLine($"{records} records of {valueSize} bytes, Checkpoint mode; segment files {logBytes / 1048576.0:0.0} MiB.");
            Console.WriteLine("| Page cache | Open and one read (s) | Sequential read of the segment files (s) | Ratio |");
            Console.WriteLine("|---|---:|---:|---:|");
            await PrintRowAsync("warm", options, records, directory, drop: false).ConfigureAwait(false);
            if (dropCaches)
            {
                await PrintRowAsync("dropped", options, records, directory, drop: true).ConfigureAwait(false);
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

    private static async Task PrintRowAsync(string label, MixedStorageKVStoreOptions options, int records, string directory, bool drop)
    {
        if (drop && !DropPageCache())
        {
            Console.WriteLine($"| {label} | (cannot drop the page cache here: needs root on Linux) | | |");
            return;
        }

        var open = Stopwatch.StartNew();
        await using (MixedStorageKVStore<long, byte[]> store = await MixedStorageKVStore<long, byte[]>.OpenAsync(options).ConfigureAwait(false))
        {
            if ((await store.ReadAsync(records - 1).ConfigureAwait(false)).Status != KeyStatus.Found)
            {
                throw new InvalidOperationException("The reopened store lost its last record.");
            }
        }

        double openSeconds = open.Elapsed.TotalSeconds;
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

        double readSeconds = read.Elapsed.TotalSeconds;
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {label} | {openSeconds:0.00} | {readSeconds:0.00} | {openSeconds / readSeconds:0.0} |"));
    }

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
}
