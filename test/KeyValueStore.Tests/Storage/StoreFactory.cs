using System;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Storage;

/// <summary>Opens real FASTER-backed stores in a test's own directory.</summary>
internal static class StoreFactory
{
    /// <summary>
    /// 4 KB pages and 8 KB of memory, as in the reference's low-memory benchmarks: almost everything lives on disk.
    /// Scheduled compaction is off, so tests that want it turn it on explicitly.
    /// </summary>
    public static MixedStorageKVStoreOptions LowMemory(string directory) => new()
    {
        LogDirectory = directory,
        LogFileNamePrefix = "store",
        PageSizeBits = 12,
        MemorySizeBits = 13,
        SegmentSizeBits = 20,
        IndexNumBuckets = 1 << 16,
        TimeBetweenLogCompactionsMS = -1,
    };

    /// <summary>The low-memory store with its segment files behind a <see cref="Support.FaultInjectingDevice"/> the test controls.</summary>
    public static FasterRecordStore OpenLowMemoryWithFaultInjection(string directory, out Support.FaultInjectingDevice segments) =>
        OpenWithFaultInjection(LowMemory(directory), out segments);

    /// <summary>A store of <paramref name="options"/> with its segment files behind a <see cref="Support.FaultInjectingDevice"/> the test controls.</summary>
    public static FasterRecordStore OpenWithFaultInjection(MixedStorageKVStoreOptions options, out Support.FaultInjectingDevice segments)
    {
        Support.FaultInjectingDevice? wrapped = null;
        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            WrapDevice = (inner, role) => role == DeviceRole.HybridLog ? wrapped = new Support.FaultInjectingDevice(inner) : inner,
        };
        FasterRecordStore store = StoreOpener.Open(settings, NullLogger.Instance);
        segments = wrapped!;
        return store;
    }

    /// <summary>A store of <paramref name="options"/> whose write-ahead log's commit file fails its writes once <paramref name="disk"/> fails.</summary>
    public static FasterRecordStore OpenWithFailingCommitFile(MixedStorageKVStoreOptions options, CrashHarness.DiskFailure disk, out CrashHarness.FailingDiskCommitFile commits)
    {
        CrashHarness.FailingDiskCommitFile? wrapped = null;
        StoreSettings settings = StoreSettingsValidator.Validate(options) with
        {
            WrapWriteAheadLogCommits = inner => wrapped = new CrashHarness.FailingDiskCommitFile(inner, disk),
        };
        FasterRecordStore store = StoreOpener.Open(settings, NullLogger.Instance);
        commits = wrapped!;
        return store;
    }

    public static FasterRecordStore Open(MixedStorageKVStoreOptions options, ILogger? logger = null, TimeProvider? timeProvider = null) =>
        StoreOpener.Open(StoreSettingsValidator.Validate(options), logger ?? NullLogger.Instance, timeProvider);
}
