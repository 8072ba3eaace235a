using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;
using FASTER.core;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// The store both sides open, its keys and the values the worker writes, which the checker can recompute exactly.
/// </summary>
/// <remarks>
/// Keys <c>0</c> to <see cref="KeyCount"/> - 1 belong to <see cref="KeyOwners"/> tasks by their remainder: the single
/// writers own remainders 0 to 3, the batch writer owns remainder 4. Value sizes run from 0 bytes to
/// <see cref="MaxValueBytes"/>, most of them small (see <see cref="ValueLength"/>).
/// </remarks>
internal static class CrashStore
{
    public const int KeyCount = 100_000;

    /// <summary>The tasks that own keys: four writing one key at a time, one writing batches.</summary>
    public const int KeyOwners = 5;

    /// <summary>The owner whose keys are written in batches.</summary>
    public const int BatchOwner = 4;

    /// <summary>The largest value written: 1 MiB, so a page is 2 MiB.</summary>
    public const int MaxValueBytes = 1 << 20;

    /// <summary>Bank accounts moved between by atomic read-modify-write batches; their total never changes.</summary>
    public const int Accounts = 16;

    public const long OpeningBalance = 1_000;

    /// <summary>
    /// Pages just large enough for the largest value and four of them in memory, so most records live in segment files;
    /// compaction and periodic checkpoints run often so that crashes land during both. With
    /// <paramref name="writeAheadLogElsewhere"/>, a Commit-mode store keeps its write-ahead log in <see cref="WriteAheadLogHome"/>.
    /// </summary>
    public static MixedStorageKVStoreOptions Options(string directory, DurabilityMode mode, bool writeAheadLogElsewhere = false) => new()
    {
        LogDirectory = directory,
        LogFileNamePrefix = "crash",
        PageSizeBits = 21,
        MemorySizeBits = 23,
        SegmentSizeBits = 23,
        IndexNumBuckets = 1 << 17,
        DeleteLogOnClose = false,
        Durability = mode,
        CheckpointIntervalMS = 150,
        TimeBetweenLogCompactionsMS = 100,
        InitialLogCompactionThresholdBytes = 16 << 20,
        ValueChecksums = true,
        WriteAheadLogDirectory = writeAheadLogElsewhere && mode == DurabilityMode.Commit ? WriteAheadLogHome(directory) : null,
    };

    /// <summary>The directory a store with its write-ahead log elsewhere keeps it in: a folder of its own, not the store's files.</summary>
    public static string WriteAheadLogHome(string directory) => System.IO.Path.Combine(directory, "wal-home");

    /// <summary>
    /// Opens the store, its devices wrapped by <paramref name="power"/>'s when given (power-cut runs), or failing with
    /// <paramref name="disk"/> (failing-disk runs).
    /// </summary>
    public static FasterRecordStore Open(string directory, DurabilityMode mode, PowerSwitch? power = null, bool writeAheadLogElsewhere = false, DiskFailure? disk = null)
    {
        // Index checkpoints once an open would replay 4 MB (half the 8 MB table), so that crashes land during them too.
        StoreSettings settings = StoreSettingsValidator.Validate(Options(directory, mode, writeAheadLogElsewhere)) with { MinReplayBytesForIndexCheckpoint = 4 << 20 };
        if (power is not null)
        {
            settings = settings with { WrapDevice = (device, _) => new PowerCutDevice(device, power) };
        }
        else if (disk is not null)
        {
            settings = settings with
            {
                WrapDevice = (device, _) => new FailingDiskDevice(device, disk),
                WrapWriteAheadLogCommits = commits => new FailingDiskCommitFile(commits, disk),
                Directories = new FailingDiskDirectories(disk),
            };
        }

        return StoreOpener.Open(settings, NullLogger.Instance);
    }

    public static byte[] Key(int key) => BitConverter.GetBytes(key);

    /// <summary>Account keys lie outside the range of <see cref="Key"/>.</summary>
    public static byte[] AccountKey(int account) => BitConverter.GetBytes(1_000_000 + account);

    public static IReadOnlyList<ReadOnlyMemory<byte>> AllAccountKeys() =>
        Enumerable.Range(0, Accounts).Select(account => (ReadOnlyMemory<byte>)AccountKey(account)).ToList();

    /// <summary>
    /// The value of <paramref name="key"/> at <paramref name="version"/>: when long enough, key and version first, then
    /// a filler whose bytes depend on both, so a torn, stale or misplaced value never matches.
    /// </summary>
    public static byte[] Value(int key, long version)
    {
        var value = new byte[ValueLength(key, version)];
        byte filler = (byte)((key + version) % 251);
        if (value.Length >= 12)
        {
            BinaryPrimitives.WriteInt32LittleEndian(value, key);
            BinaryPrimitives.WriteInt64LittleEndian(value.AsSpan(4), version);
            value.AsSpan(12).Fill(filler);
        }
        else
        {
            value.AsSpan().Fill(filler);
        }

        return value;
    }

    /// <summary>
    /// Lengths from 0 bytes to 1 MiB: for the single writers 90% up to 128 bytes, 9% up to 8 KiB, 0.9% up to 64 KiB and
    /// 0.1% up to 1 MiB; batch entries up to 64 bytes (a batch of 65,535 of them is still several MiB encoded).
    /// </summary>
    public static int ValueLength(int key, long version)
    {
        ulong mixed = Mix((ulong)key * 0x9E3779B97F4A7C15UL ^ (ulong)version);
        int bucket = (int)(mixed % 1000);
        ulong spread = mixed >> 10;
        if (key % KeyOwners == BatchOwner)
        {
            return (int)(spread % 65);
        }

        return bucket switch
        {
            < 900 => (int)(spread % 129),
            < 990 => 129 + (int)(spread % (8_192 - 129)),
            < 999 => 8_192 + (int)(spread % (65_536 - 8_192)),
            _ => 65_536 + (int)(spread % (MaxValueBytes - 65_536 + 1)),
        };
    }

    private static ulong Mix(ulong value)
    {
        value ^= value >> 30;
        value *= 0xBF58476D1CE4E5B9UL;
        value ^= value >> 27;
        value *= 0x94D049BB133111EBUL;
        return value ^ (value >> 31);
    }
}
