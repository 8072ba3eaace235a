using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Numerics;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Options;

/// <summary>
/// Parses the command line into <see cref="LoadTestOptions"/>. Every problem is an
/// <see cref="InvalidOptionException"/> whose message names the option, the value given and what is
/// allowed. Touches nothing on disk: --dir and --json are checked when the run starts.
/// </summary>
internal static class OptionParser
{
    private static readonly string[] Flags = ["--verify", "--cold", "--help"];

    private static readonly string[] Valued =
    [
        "--threads", "--seconds", "--records", "--value-size", "--value-fill", "--workload", "--distribution",
        "--backend", "--memory-size", "--dir", "--json", "--seed", "--batch-size", "--compaction", "--disk-budget",
        "--wal-dir", "--endpoint", "--warmup", "--mutable-fraction", "--compaction-ratio", "--segment-size", "--rate", "--max-allocated-per-op",
    ];

    public static LoadTestOptions Parse(IReadOnlyList<string> args)
    {
        Dictionary<string, string> given = Tokenize(args);
        if (given.ContainsKey("--help"))
        {
            return new LoadTestOptions { ShowHelp = true };
        }

        var options = new LoadTestOptions();
        Workload workload = given.TryGetValue("--workload", out string? workloadText) ? ParseWorkload(workloadText) : Workload.A;
        BackendDescriptor backend = given.TryGetValue("--backend", out string? backendText) ? ParseBackend(backendText) : options.Backend;
        options = options with
        {
            Threads = Get(given, "--threads", options.Threads, text => (int)Integer("--threads", text, OptionRanges.MinThreads, OptionRanges.MaxThreads, OptionRanges.Threads)),
            Seconds = Get(given, "--seconds", options.Seconds, text => (int)Integer("--seconds", text, OptionRanges.MinSeconds, OptionRanges.MaxSeconds, OptionRanges.Seconds)),
            Records = Get(given, "--records", options.Records, text => Integer("--records", text, OptionRanges.MinRecords, OptionRanges.MaxRecords, OptionRanges.Records)),
            ValueSize = Get(given, "--value-size", options.ValueSize, ParseValueSize),
            ValueFill = Get(given, "--value-fill", options.ValueFill, ParseValueFill),
            Workload = workload,
            Distribution = given.TryGetValue("--distribution", out string? distributionText) ? ParseDistribution(distributionText) : workload.DefaultDistribution,
            Backend = backend,
            MemorySizeBytes = Get(given, "--memory-size", options.MemorySizeBytes, ParseMemorySize),
            Compaction = Get(given, "--compaction", options.Compaction, ParseOnOff),
            DiskBudgetBytes = Get(given, "--disk-budget", options.DiskBudgetBytes, ParseDiskBudget),
            MutableFraction = Get(given, "--mutable-fraction", options.MutableFraction, ParseMutableFraction),
            CompactionRatio = Get(given, "--compaction-ratio", options.CompactionRatio, ParseCompactionRatio),
            SegmentSizeBytes = Get<long?>(given, "--segment-size", options.SegmentSizeBytes, ParseSegmentSize),
            Directory = Get(given, "--dir", options.Directory, text => NonEmpty("--dir", text, "a directory path")),
            WriteAheadLogDirectory = Get(given, "--wal-dir", options.WriteAheadLogDirectory, text => NonEmpty("--wal-dir", text, "a directory path")),
            Endpoint = Get(given, "--endpoint", options.Endpoint, ParseEndpoint),
            JsonPath = Get(given, "--json", options.JsonPath, text => NonEmpty("--json", text, "a file path")),
            Verify = given.ContainsKey("--verify"),
            Cold = given.ContainsKey("--cold"),
            WarmupSeconds = Get(given, "--warmup", options.WarmupSeconds, text => (int)Integer("--warmup", text, OptionRanges.MinWarmupSeconds, OptionRanges.MaxSeconds, OptionRanges.WarmupSeconds)),
            Rate = Get<long?>(given, "--rate", options.Rate, text => Integer("--rate", text, OptionRanges.MinRate, OptionRanges.MaxRate, OptionRanges.Rate)),
            MaxAllocatedBytesPerOperation = Get<long?>(given, "--max-allocated-per-op", options.MaxAllocatedBytesPerOperation, text => Integer("--max-allocated-per-op", text, OptionRanges.MinMaxAllocated, OptionRanges.MaxMaxAllocated, OptionRanges.MaxAllocated)),
            Seed = Get(given, "--seed", options.Seed, text => Integer("--seed", text, long.MinValue, long.MaxValue, "a 64-bit integer")),
            BatchSize = Get(given, "--batch-size", options.BatchSize, text => (int)Integer("--batch-size", text, OptionRanges.MinBatchSize, OptionRanges.MaxBatchSize, OptionRanges.BatchSize)),
        };

        if (options.Cold && Running.PageCache.WhyCannotDrop() is string cannotDrop)
        {
            throw new InvalidOptionException(cannotDrop);
        }

        if (options.Backend.UsesMemorySize && FasterStoreSizing.Problem(options.MemorySizeBytes, options.ValueSize, options.SegmentSizeBytes) is string problem)
        {
            throw new InvalidOptionException(problem);
        }

        if (options.WriteAheadLogDirectory is not null && !options.Backend.KeepsWriteAheadLog)
        {
            throw new InvalidOptionException(
                $"--wal-dir places the write-ahead log of this store in Commit mode, and the {options.Backend.Name} backend keeps none; use it with typed-commit or faster-commit, or leave it out.");
        }

        if (options.Backend.NeedsEndpoint && options.Endpoint is null)
        {
            throw new InvalidOptionException(
                $"The {options.Backend.Name} backend measures a server already running, and needs its address: --endpoint host:port, e.g. --endpoint 127.0.0.1:6379. "
                + "To measure Garnet with nothing to start, use --backend garnet.");
        }

        if (options.Endpoint is not null && !options.Backend.NeedsEndpoint)
        {
            throw new InvalidOptionException(
                $"--endpoint names the server the redis backend measures, and the {options.Backend.Name} backend connects to none; use it with --backend redis, or leave it out.");
        }

        if (options.BatchSize > 1 && !options.Workload.OperationTypes.Any(OperationKinds.IsBlindWrite))
        {
            throw new InvalidOptionException(
                $"--batch-size {options.BatchSize} groups updates and inserts into batches, and workload {options.Workload.Name} ({options.Workload.Description}) issues none; "
                + "reads and read-modify-writes stay single operations. Use a workload with updates or inserts (A, B, D, W), or --batch-size 1.");
        }

        return options;
    }

    private static bool ParseOnOff(string text) => text switch
    {
        "on" => true,
        "off" => false,
        _ => throw new InvalidOptionException($"--compaction must be on or off; got '{text}'."),
    };

    /// <summary>Splits "--name value" and "--name=value" into a map, rejecting unknown, repeated and stray arguments.</summary>
    private static Dictionary<string, string> Tokenize(IReadOnlyList<string> args)
    {
        var given = new Dictionary<string, string>(StringComparer.Ordinal);
        for (int i = 0; i < args.Count; i++)
        {
            string arg = args[i];
            if (!arg.StartsWith("--", StringComparison.Ordinal))
            {
                throw new InvalidOptionException(arg is "-h" or "-?" or "/?"
                    ? $"Unknown option '{arg}'; use --help."
                    : $"Unexpected argument '{arg}': every argument is an option starting with '--', and values follow their option.");
            }

            int equals = arg.IndexOf('=', StringComparison.Ordinal);
            string name = equals < 0 ? arg : arg[..equals];
            string? value = equals < 0 ? null : arg[(equals + 1)..];
            if (Flags.Contains(name))
            {
                if (value is not null)
                {
                    throw new InvalidOptionException($"{name} takes no value; got '{arg}'.");
                }

                value = string.Empty;
            }
            else if (Valued.Contains(name))
            {
                if (value is null)
                {
                    if (i + 1 >= args.Count || args[i + 1].StartsWith("--", StringComparison.Ordinal))
                    {
                        throw new InvalidOptionException($"{name} needs a value.");
                    }

                    value = args[++i];
                }
            }
            else
            {
                throw new InvalidOptionException($"Unknown option '{name}'." + Suggestion(name));
            }

            if (given.TryGetValue(name, out string? earlier))
            {
                throw new InvalidOptionException($"{name} is given twice ('{earlier}' and '{value}'); give it once.");
            }

            given[name] = value;
        }

        return given;
    }

    private static string Suggestion(string name)
    {
        string? closest = Flags.Concat(Valued)
            .Select(known => (Known: known, Distance: EditDistance(name, known)))
            .Where(candidate => candidate.Distance <= 2)
            .OrderBy(candidate => candidate.Distance)
            .Select(candidate => candidate.Known)
            .FirstOrDefault();
        return closest is null ? string.Empty : $" Did you mean '{closest}'?";
    }

    private static int EditDistance(string a, string b)
    {
        int[] previous = Enumerable.Range(0, b.Length + 1).ToArray();
        for (int i = 1; i <= a.Length; i++)
        {
            int[] current = new int[b.Length + 1];
            current[0] = i;
            for (int j = 1; j <= b.Length; j++)
            {
                int substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
                current[j] = Math.Min(substitution, Math.Min(previous[j], current[j - 1]) + 1);
            }

            previous = current;
        }

        return previous[b.Length];
    }

    private static T Get<T>(Dictionary<string, string> given, string name, T fallback, Func<string, T> parse) =>
        given.TryGetValue(name, out string? text) ? parse(text) : fallback;

    private static long Integer(string name, string text, long min, long max, string range)
    {
        if (!long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long value) || value < min || value > max)
        {
            throw new InvalidOptionException($"{name} must be an integer, {range}; got '{text}'.");
        }

        return value;
    }

    private static int ParseValueSize(string text)
    {
        if (!ByteSize.TryParse(text, out long bytes) || bytes < OptionRanges.MinValueSize || bytes > OptionRanges.MaxValueSize)
        {
            throw new InvalidOptionException($"--value-size must be a size in bytes, {OptionRanges.ValueSize} (a value starts with its 16-byte record id and version); got '{text}'.");
        }

        return (int)bytes;
    }

    private static long? ParseSegmentSize(string text)
    {
        if (!ByteSize.TryParse(text, out long bytes) || bytes < OptionRanges.MinMemorySize || bytes > OptionRanges.MaxMemorySize || !BitOperations.IsPow2(bytes))
        {
            throw new InvalidOptionException($"--segment-size must be {OptionRanges.MemorySize}, in bytes or with a k, m, g or t suffix (FASTER's segment files are a power of two); got '{text}'.");
        }

        return bytes;
    }

    private static long ParseMemorySize(string text)
    {
        if (!ByteSize.TryParse(text, out long bytes) || bytes < OptionRanges.MinMemorySize || bytes > OptionRanges.MaxMemorySize || !BitOperations.IsPow2(bytes))
        {
            throw new InvalidOptionException($"--memory-size must be {OptionRanges.MemorySize}, in bytes or with a k, m, g or t suffix (FASTER's log memory is a power of two); got '{text}'.");
        }

        return bytes;
    }

    private static double? ParseMutableFraction(string text)
    {
        if (!double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double fraction) || !(fraction is >= 0 and <= 1))
        {
            throw new InvalidOptionException($"--mutable-fraction must be a fraction from 0 to 1, such as 0.9; got '{text}'.");
        }

        return fraction;
    }

    /// <summary>A number; the store itself then checks it against its range when it opens, and names the range.</summary>
    private static double? ParseCompactionRatio(string text)
    {
        if (!double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double ratio) || !double.IsFinite(ratio))
        {
            throw new InvalidOptionException($"--compaction-ratio must be a number of log bytes per live byte, such as 1.5; got '{text}'.");
        }

        return ratio;
    }

    /// <summary>A size the store itself then checks against its memory and segment sizes when it opens.</summary>
    private static long ParseDiskBudget(string text)
    {
        if (!ByteSize.TryParse(text, out long bytes) || bytes < 0)
        {
            throw new InvalidOptionException($"--disk-budget must be a size in bytes or with a k, m, g or t suffix, or 0 for none; got '{text}'.");
        }

        return bytes;
    }

    /// <summary>
    /// host:port, the host a name, an IPv4 address or a bracketed IPv6 one. Nothing else: the value goes into a
    /// StackExchange.Redis configuration string, where a comma would start options of its own.
    /// </summary>
    private static string ParseEndpoint(string text)
    {
        int colon = text.LastIndexOf(':');
        string host = colon < 0 ? string.Empty : text[..colon];
        bool hostIsValid = host.Length > 0
            && !host.Any(c => char.IsWhiteSpace(c) || c == ',')
            && (host.StartsWith('[') ? host.EndsWith(']') && host.Length > 2 : !host.Contains(':', StringComparison.Ordinal));
        if (!hostIsValid
            || !int.TryParse(text.AsSpan(colon + 1), NumberStyles.None, CultureInfo.InvariantCulture, out int port)
            || port < OptionRanges.MinPort || port > OptionRanges.MaxPort)
        {
            throw new InvalidOptionException($"--endpoint must be host:port, a server's name or address and its port ({OptionRanges.Port}), e.g. 127.0.0.1:6379; got '{text}'.");
        }

        return text;
    }

    private static Workload ParseWorkload(string text) =>
        Workload.Find(text) ?? throw new InvalidOptionException(
            $"--workload must be one of {string.Join(", ", Workload.All.Select(workload => workload.Name))}; got '{text}'."
            + (string.Equals(text, "E", StringComparison.OrdinalIgnoreCase) ? " YCSB E is short range scans, and the store has no scans." : string.Empty));

    private static ValueFill ParseValueFill(string text) => text switch
    {
        "random" => ValueFill.Random,
        "compressible" => ValueFill.Compressible,
        _ => throw new InvalidOptionException($"--value-fill must be random or compressible; got '{text}'."),
    };

    private static KeyDistribution ParseDistribution(string text)
    {
        foreach (KeyDistribution distribution in Enum.GetValues<KeyDistribution>())
        {
            if (string.Equals(distribution.ToString(), text, StringComparison.OrdinalIgnoreCase))
            {
                return distribution;
            }
        }

        throw new InvalidOptionException($"--distribution must be one of uniform, zipfian, latest; got '{text}'.");
    }

    private static BackendDescriptor ParseBackend(string text) =>
        BackendCatalog.Find(text) ?? throw new InvalidOptionException(
            $"--backend must be one of {string.Join(", ", BackendCatalog.All.Select(backend => backend.Name))}; got '{text}'.");

    private static string NonEmpty(string name, string text, string what) =>
        string.IsNullOrWhiteSpace(text) ? throw new InvalidOptionException($"{name} needs {what}; got '{text}'.") : text;
}
