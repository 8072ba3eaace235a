using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;

namespace KeyValueStore.Storage;

/// <summary>
/// Turns user options into <see cref="StoreSettings"/>, collecting every problem into one
/// <see cref="InvalidStoreOptionsException"/>. Touches nothing on disk.
/// </summary>
internal static class StoreSettingsValidator
{
    internal const int MinPageSizeBits = 9;     // FASTER requires a page to hold at least one 512-byte sector.
    internal const int MaxPageSizeBits = 30;
    internal const int MaxMemorySizeBits = 48;
    internal const int MaxSegmentSizeBits = 40;
    internal const int MaxSessionPoolSize = 4096;

    /// <summary>
    /// The lowest <see cref="MixedStorageKVStoreOptions.CompactionLogToLiveRatio"/>: a pass aims at three quarters of the
    /// ratio, 1.125 times the live data here, so each has some garbage to give back beside what it copies.
    /// </summary>
    internal const double MinCompactionLogToLiveRatio = 1.5;

    /// <summary>The highest <see cref="MixedStorageKVStoreOptions.CompactionLogToLiveRatio"/>.</summary>
    internal const double MaxCompactionLogToLiveRatio = 16;
    internal const string DurableStoreDefaultPrefix = "store";

    public static StoreSettings Validate(MixedStorageKVStoreOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var problems = new List<string>();
        const string Name = nameof(MixedStorageKVStoreOptions);

        if (options.IndexNumBuckets <= 0 || (options.IndexNumBuckets & (options.IndexNumBuckets - 1)) != 0)
        {
            problems.Add($"{Name}.{nameof(options.IndexNumBuckets)} is {options.IndexNumBuckets}; FASTER needs a positive power of two, such as {1L << 20}.");
        }

        bool pageSizeValid = options.PageSizeBits is >= MinPageSizeBits and <= MaxPageSizeBits;
        if (!pageSizeValid)
        {
            problems.Add($"{Name}.{nameof(options.PageSizeBits)} is {options.PageSizeBits}; use {MinPageSizeBits} (512-byte pages, one disk sector) to {MaxPageSizeBits}.");
        }

        // Checked against the smallest valid page when the page size is itself invalid, so that a value wrong whatever
        // the page size is reported in the same exception.
        int pageSizeBits = pageSizeValid ? options.PageSizeBits : MinPageSizeBits;
        if (options.MemorySizeBits > MaxMemorySizeBits || options.MemorySizeBits < pageSizeBits + 1)
        {
            problems.Add($"{Name}.{nameof(options.MemorySizeBits)} is {options.MemorySizeBits}; the log needs at least two pages in memory, so use "
                + $"{pageSizeBits + 1} ({nameof(options.PageSizeBits)} + 1) to {MaxMemorySizeBits}.");
        }

        if (options.SegmentSizeBits > MaxSegmentSizeBits || options.SegmentSizeBits < pageSizeBits)
        {
            problems.Add($"{Name}.{nameof(options.SegmentSizeBits)} is {options.SegmentSizeBits}; a segment must hold at least one page, so use "
                + $"{pageSizeBits} ({nameof(options.PageSizeBits)}) to {MaxSegmentSizeBits}.");
        }

        if (options.SessionPoolSize is < 1 or > MaxSessionPoolSize)
        {
            problems.Add($"{Name}.{nameof(options.SessionPoolSize)} is {options.SessionPoolSize}; use 1 to {MaxSessionPoolSize}.");
        }

        if (options.TimeBetweenLogCompactionsMS == 0)
        {
            problems.Add($"{Name}.{nameof(options.TimeBetweenLogCompactionsMS)} is 0; use a positive interval in milliseconds, or a negative value to disable scheduled compaction.");
        }

        if (options.InitialLogCompactionThresholdBytes < 0)
        {
            problems.Add($"{Name}.{nameof(options.InitialLogCompactionThresholdBytes)} is {options.InitialLogCompactionThresholdBytes}; use a positive size in bytes, or 0 for twice the log's memory size.");
        }

        if (options.LogMutableFraction is { } fraction && !(fraction is >= 0 and <= 1))
        {
            problems.Add($"{Name}.{nameof(options.LogMutableFraction)} is {fraction}; use a fraction from 0 to 1, or null for the durability mode's default.");
        }

        if (!(options.CompactionLogToLiveRatio is >= MinCompactionLogToLiveRatio and <= MaxCompactionLogToLiveRatio))
        {
            problems.Add($"{Name}.{nameof(options.CompactionLogToLiveRatio)} is {options.CompactionLogToLiveRatio}; use {MinCompactionLogToLiveRatio} to {MaxCompactionLogToLiveRatio}"
                + $" (a pass brings the log back to three quarters of that times the live data, which must leave room above the live data; {MixedStorageKVStoreOptions.DefaultCompactionLogToLiveRatio} by default).");
        }

        ValidateLogDiskBudget(options, problems);
        bool durable = ValidateDurability(options, problems);
        string? directory = ResolveDirectory(options.LogDirectory, problems);
        string? prefix = ResolvePrefix(options.LogFileNamePrefix, durable, problems);
        string? writeAheadLogDirectory = ResolveWriteAheadLogDirectory(options, durable, problems);

        if (problems.Count > 0)
        {
            throw new InvalidStoreOptionsException(problems);
        }

        return new StoreSettings(
            options.IndexNumBuckets,
            options.PageSizeBits,
            options.MemorySizeBits,
            options.SegmentSizeBits,
            directory!,
            prefix!,
            options.DeleteLogOnClose,
            options.SessionPoolSize,
            options.TimeBetweenLogCompactionsMS > 0 ? TimeSpan.FromMilliseconds(options.TimeBetweenLogCompactionsMS) : null,
            options.InitialLogCompactionThresholdBytes > 0 ? options.InitialLogCompactionThresholdBytes : 2L << options.MemorySizeBits,
            options.Durability,
            durable ? TimeSpan.FromMilliseconds(options.CheckpointIntervalMS) : Timeout.InfiniteTimeSpan,
            options.ValueChecksums,
            options.LogDiskBudgetBytes,
            writeAheadLogDirectory)
        {
            MeterFactory = options.MeterFactory,
            LogMutableFraction = options.LogMutableFraction ?? DefaultLogMutableFraction(options.Durability),
            CompactionLogToLiveRatio = options.CompactionLogToLiveRatio,
        };
    }

    /// <summary>
    /// How much of the in-memory log is updated in place when the options leave it to the mode. Commit mode's writers wait
    /// for group commits that queue behind each checkpoint's flush of that region, so it keeps the region small there; the
    /// other modes' writers pay more for the extra appends than they gain (docs/benchmarks.md, "How much of the log's
    /// memory is updated in place").
    /// </summary>
    internal static double DefaultLogMutableFraction(DurabilityMode durability) => durability == DurabilityMode.Commit ? 0.1 : 0.9;

    /// <summary>The write-ahead log's own directory as a full path, or null for the store's directory.</summary>
    private static string? ResolveWriteAheadLogDirectory(MixedStorageKVStoreOptions options, bool durable, List<string> problems)
    {
        const string Option = nameof(MixedStorageKVStoreOptions) + "." + nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory);
        string? directory = options.WriteAheadLogDirectory;
        if (directory is null)
        {
            return null;
        }

        if (!durable && Enum.IsDefined(options.Durability))
        {
            problems.Add($"{Option} is set, but {nameof(MixedStorageKVStoreOptions)}.{nameof(options.Durability)} is {options.Durability}, which keeps no write-ahead log; "
                + $"set {nameof(options.Durability)} to {nameof(DurabilityMode.Commit)}, or leave {Option} null.");
            return null;
        }

        if (directory.Trim().Length == 0 || directory.IndexOf('\0') >= 0)
        {
            problems.Add($"{Option} is '{directory}'; use a valid directory path, or null to keep the log in {nameof(MixedStorageKVStoreOptions.LogDirectory)}.");
            return null;
        }

        return Path.GetFullPath(directory);
    }

    /// <summary>
    /// A budget must leave compaction something to give back: the log's newest part stays in memory, uncompacted, and the
    /// disk is given back a segment file at a time.
    /// </summary>
    private static void ValidateLogDiskBudget(MixedStorageKVStoreOptions options, List<string> problems)
    {
        const string Name = nameof(MixedStorageKVStoreOptions);
        long budget = options.LogDiskBudgetBytes;
        if (budget == 0)
        {
            return;
        }

        if (budget < 0)
        {
            problems.Add($"{Name}.{nameof(options.LogDiskBudgetBytes)} is {budget}; use a size in bytes, or 0 for no budget.");
            return;
        }

        int memoryBits = Math.Clamp(options.MemorySizeBits, 0, MaxMemorySizeBits);
        int segmentBits = Math.Clamp(options.SegmentSizeBits, 0, MaxSegmentSizeBits);
        long least = Math.Max(2L << memoryBits, 2L << segmentBits);
        if (budget < least)
        {
            problems.Add($"{Name}.{nameof(options.LogDiskBudgetBytes)} is {budget}; use at least {least} bytes: twice the log's memory size "
                + $"(2^{nameof(options.MemorySizeBits)}) and two segments (2^{nameof(options.SegmentSizeBits)}), since the log's newest part "
                + "stays in memory, uncompacted, and the disk is given back a segment at a time. Or lower those sizes.");
        }

        if (options.TimeBetweenLogCompactionsMS < 0)
        {
            problems.Add($"{Name}.{nameof(options.LogDiskBudgetBytes)} is set, but {Name}.{nameof(options.TimeBetweenLogCompactionsMS)} is "
                + $"{options.TimeBetweenLogCompactionsMS}, which turns off the scheduled compaction that keeps the log under the budget; "
                + "use a positive interval, or 0 for no budget.");
        }
    }

    /// <summary>Checks the durability options; returns whether the store is durable (and its options valid so far).</summary>
    private static bool ValidateDurability(MixedStorageKVStoreOptions options, List<string> problems)
    {
        const string Name = nameof(MixedStorageKVStoreOptions);
        if (!Enum.IsDefined(options.Durability))
        {
            problems.Add($"{Name}.{nameof(options.Durability)} is {(int)options.Durability}; use {nameof(DurabilityMode.None)}, {nameof(DurabilityMode.Checkpoint)} or {nameof(DurabilityMode.Commit)}.");
            return false;
        }

        if (options.Durability == DurabilityMode.None)
        {
            return false;
        }

        string mode = $"{Name}.{nameof(options.Durability)} is {options.Durability}";
        if (string.IsNullOrEmpty(options.LogDirectory))
        {
            problems.Add($"{mode}, but {Name}.{nameof(options.LogDirectory)} is not set; a durable store is recovered from its directory, so set it to a directory of your own.");
        }

        if (options.DeleteLogOnClose)
        {
            problems.Add($"{mode}, but {Name}.{nameof(options.DeleteLogOnClose)} is true, which would delete the data on close; set it to false.");
        }

        if (options.CheckpointIntervalMS <= 0)
        {
            problems.Add($"{Name}.{nameof(options.CheckpointIntervalMS)} is {options.CheckpointIntervalMS}; a durable store needs a positive interval in milliseconds, such as 5000.");
        }

        return true;
    }

    private static string? ResolveDirectory(string? logDirectory, List<string> problems)
    {
        if (string.IsNullOrEmpty(logDirectory))
        {
            return Path.Combine(Path.GetTempPath(), "FasterLogs");
        }

        if (logDirectory.IndexOf('\0') >= 0)
        {
            problems.Add($"{nameof(MixedStorageKVStoreOptions)}.{nameof(MixedStorageKVStoreOptions.LogDirectory)} contains a NUL character; use a valid directory path.");
            return null;
        }

        return Path.GetFullPath(logDirectory);
    }

    private static string? ResolvePrefix(string? prefix, bool durable, List<string> problems)
    {
        if (string.IsNullOrEmpty(prefix))
        {
            // A scratch store gets a name of its own so that stores sharing the default directory never meet; a
            // durable store needs a name that is the same on the next start, or it could not be found again.
            return durable ? DurableStoreDefaultPrefix : Guid.NewGuid().ToString();
        }

        const string Option = nameof(MixedStorageKVStoreOptions) + "." + nameof(MixedStorageKVStoreOptions.LogFileNamePrefix);
        bool hasSeparator = prefix.IndexOf(Path.DirectorySeparatorChar) >= 0
            || prefix.IndexOf(Path.AltDirectorySeparatorChar) >= 0
            || prefix.IndexOf('\\') >= 0; // Rejected on every platform so a prefix means the same file everywhere.
        if (hasSeparator || prefix.Contains("..", StringComparison.Ordinal))
        {
            problems.Add($"{Option} is '{prefix}'; it names files inside {nameof(MixedStorageKVStoreOptions.LogDirectory)}, so it must not contain a path separator or '..'. Put the directory part in {nameof(MixedStorageKVStoreOptions.LogDirectory)}.");
            return null;
        }

        if (prefix.IndexOfAny(Path.GetInvalidFileNameChars()) >= 0 || prefix.Trim().Length == 0)
        {
            problems.Add($"{Option} is '{prefix}'; it must be a valid, non-blank file name.");
            return null;
        }

        return prefix;
    }
}
