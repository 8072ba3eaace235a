using System;
using System.Collections.Generic;
using System.Linq;
using System.Buffers.Binary;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.CrashHarness;

/// <summary>The store both sides open, and the values the worker writes, which the checker can recompute exactly.</summary>
internal static class CrashStore
{
    public const int KeyCount = 400;

    /// <summary>Bank accounts moved between by atomic read-modify-write batches; their total never changes.</summary>
    public const int Accounts = 16;

    public const long OpeningBalance = 1_000;

    /// <summary>
    /// Small pages and memory so most records live in segment files; compaction and periodic checkpoints run often so
    /// that kills land during both.
    /// </summary>
    public static MixedStorageKVStoreOptions Options(string directory, DurabilityMode mode) => new()
    {
        LogDirectory = directory,
        LogFileNamePrefix = "crash",
        PageSizeBits = 12,
        MemorySizeBits = 16,
        SegmentSizeBits = 16,
        IndexNumBuckets = 1 << 12,
        DeleteLogOnClose = false,
        Durability = mode,
        CheckpointIntervalMS = 150,
        TimeBetweenLogCompactionsMS = 100,
        InitialLogCompactionThresholdBytes = 64 * 1024,
        ValueChecksums = true,
    };

    public static FasterRecordStore Open(string directory, DurabilityMode mode) =>
        new(StoreSettingsValidator.Validate(Options(directory, mode)), NullLogger.Instance);

    public static byte[] Key(int key) => BitConverter.GetBytes(key);

    /// <summary>Account keys lie outside the range of <see cref="Key"/>.</summary>
    public static byte[] AccountKey(int account) => BitConverter.GetBytes(1_000_000 + account);

    public static IReadOnlyList<ReadOnlyMemory<byte>> AllAccountKeys() =>
        Enumerable.Range(0, Accounts).Select(account => (ReadOnlyMemory<byte>)AccountKey(account)).ToList();

    /// <summary>Key and version, then a filler whose length and bytes depend on both, so a torn or stale value never matches.</summary>
    public static byte[] Value(int key, long version)
    {
        int filler = (int)((version * 7919 + key) % 300);
        var value = new byte[12 + filler];
        BinaryPrimitives.WriteInt32LittleEndian(value, key);
        BinaryPrimitives.WriteInt64LittleEndian(value.AsSpan(4), version);
        value.AsSpan(12).Fill((byte)((key + version) % 251));
        return value;
    }
}
