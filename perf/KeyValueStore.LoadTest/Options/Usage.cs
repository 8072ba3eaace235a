using System.Globalization;
using System.Text;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Options;

/// <summary>The usage text, printed by --help and after every input error.</summary>
internal static class Usage
{
    public static string Text { get; } = Build();

    private static string Build()
    {
        var text = new StringBuilder();
        text.AppendLine("Usage: dotnet run -c Release --project perf/KeyValueStore.LoadTest -- [options]");
        text.AppendLine();
        text.AppendLine("Loads --records records, then runs a workload for --seconds and reports throughput and latency");
        text.AppendLine("per operation type, bytes on disk, peak memory, and durable flushes per write where counted.");
        text.AppendLine();
        text.AppendLine("Options (defaults in brackets):");
        Option(text, "--threads N", OptionRanges.Threads + $" concurrent async workers, each with one operation in flight [{LoadTestOptions.DefaultThreads}]");
        Option(text, "--seconds N", OptionRanges.Seconds + $": length of the run phase, after the load [{LoadTestOptions.DefaultSeconds}]");
        Option(text, "--rate N", OptionRanges.Rate + ": operations per second of all workers together, on an even schedule; latencies stay from each issue, and the report adds how late operations were issued [unpaced]");
        Option(text, "--warmup N", OptionRanges.WarmupSeconds + ": seconds of the workload before the run phase, not measured, so that the run starts on optimized code [0]");
        Option(text, "--records N", OptionRanges.Records + $": records loaded before the run [{LoadTestOptions.DefaultRecords}]");
        Option(text, "--value-size SIZE", OptionRanges.ValueSize + $": bytes per value, k/m suffixes allowed [{LoadTestOptions.DefaultValueSize}]");
        Option(text, "--value-fill F", "what a value holds after its 16-byte id and version [random]: random (nothing to compress), compressible (each random 8-byte word four times: LZ4 keeps about 40%)");
        Option(text, "--workload W", "workload [A]; A to F are YCSB's core workloads:");
        foreach (Workload workload in Workload.All)
        {
            Option(text, string.Empty, $"  {workload.Name}: {workload.Description}");
        }

        Option(text, "--batch-size N", OptionRanges.BatchSize + $": updates and inserts a worker writes as one atomic batch [{LoadTestOptions.DefaultBatchSize}];");
        Option(text, string.Empty, "reads and read-modify-writes stay single, so above 1 the workload needs updates or inserts");
        Option(text, "--distribution D", "key popularity [zipfian; latest for D]: uniform, zipfian (theta 0.99), latest");
        Option(text, "--backend B", $"what is measured [{BackendCatalog.Default.Name}]:");
        foreach (BackendDescriptor backend in BackendCatalog.All)
        {
            Option(text, string.Empty, $"  {backend.Name}: {backend.Description}");
        }

        Option(text, "--memory-size SIZE", OptionRanges.MemorySize + $": log memory of the typed and faster backends [{ByteSize.Format(LoadTestOptions.DefaultMemorySize)}]");
        Option(text, "--compaction on|off", "scheduled compaction of the typed and faster backends [on]; off shows what it costs");
        Option(text, "--disk-budget SIZE", "hard budget for the typed and faster backends' log (LogDiskBudgetBytes) [0: none]");
        Option(text, "--segment-size SIZE", OptionRanges.MemorySize + ", at least a page: segment files of the typed and faster backends (SegmentSizeBits) [16m, or the page when larger]; the files on disk overcount the log by up to about two segments");
        Option(text, "--compaction-ratio R", "how large the typed and faster backends' log grows, per live byte, before compaction runs (CompactionLogToLiveRatio), 1.5 to 16 [the store's default: 2]");
        Option(text, "--mutable-fraction F", "share of the typed and faster backends' log memory updated in place (LogMutableFraction), 0 to 1 [the store's default: 0.1 in Commit mode, else 0.9]");
        Option(text, "--dir DIR", "make the run's fresh directory inside DIR (created if missing) [system temp]; removed after the run");
        Option(text, "--wal-dir DIR", "typed-commit and faster-commit: keep the write-ahead log in a fresh directory inside DIR, on a device of its own (WriteAheadLogDirectory) [the run's directory]; removed after the run");
        Option(text, "--endpoint ADDR", "the server the redis backend measures, host:port, e.g. 127.0.0.1:6379 (required by redis, refused by the rest); the run's keys go under a fresh prefix, deleted after the run");
        Option(text, "--json FILE", "also write the results as JSON to FILE");
        Option(text, "--verify", "check every read against a model of the expected contents; exit 1 on any mismatch");
        Option(text, "--max-allocated-per-op N", OptionRanges.MaxAllocated + ": exit 4 if the run phase allocated more bytes per operation (the whole process) [no limit]");
        Option(text, "--cold", "drop the OS page cache between load and run, so reads of records on disk start from the device (Linux, root)");
        Option(text, "--seed N", string.Create(CultureInfo.InvariantCulture, $"64-bit seed of the workers' random choices [{LoadTestOptions.DefaultSeed}]"));
        Option(text, "--help", "print this text");
        text.AppendLine();
        text.AppendLine("SIZE is bytes, or a number with k, m, g or t (powers of 1024), e.g. 64m. Options take");
        text.AppendLine("'--name value' or '--name=value'.");
        text.AppendLine("Exit codes: 0 done; 1 --verify found mismatches; 2 bad input; 3 the backend failed; 4 over --max-allocated-per-op.");
        return text.ToString();
    }

    private static void Option(StringBuilder text, string name, string description) =>
        text.Append("  ").Append(name.PadRight(20)).Append(name.Length >= 20 ? " " : string.Empty).AppendLine(description.TrimEnd());
}
