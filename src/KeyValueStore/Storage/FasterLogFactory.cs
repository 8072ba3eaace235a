using System;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// Builds the FASTER device and <see cref="FasterKV{Key, Value}"/> a store owns, from validated settings.
/// </summary>
internal static class FasterLogFactory
{
    /// <summary>What a fault of the segment devices names, in <see cref="StoreFaultedException"/>'s message.</summary>
    private const string SegmentFiles = "log segment files";

    /// <summary>Builds the log on <paramref name="layout"/>'s files; a durable store also gets FASTER's checkpoint directory.</summary>
    /// <param name="settings">The validated settings.</param>
    /// <param name="layout">Where the files are. The directory must already be known to be writable.</param>
    /// <param name="reopenExistingSegments">
    /// Whether segment files already on disk belong to this log (a durable store being recovered): the device then
    /// learns which segments exist, so truncation and recovery know where the log starts.
    /// </param>
    /// <param name="fault">Receives the first failed write or read of the segment files or the checkpoint files.</param>
    /// <param name="timeProvider">Times how long emptied segment files are kept for reuse.</param>
    /// <returns>The store, its device, for a durable store the factory of its checkpoint files and the commits of its checkpoints' metadata, and the device keeping emptied segment files for reuse.</returns>
    public static (FasterKV<SpanByte, SpanByte> Store, TruncationSafeDevice Device, CheckpointDeviceFactory? CheckpointFiles, CheckpointCommits? Commits, SegmentRecyclingDevice Spares) Create(
        StoreSettings settings, LogFileLayout layout, bool reopenExistingSegments, StoreFault fault, TimeProvider timeProvider)
    {
        // Preallocating segments trades disk space for fewer file-extension stalls while flushing pages, and a new segment
        // takes an emptied one's file when there is one (SegmentRecyclingDevice). A record's read
        // the page cache can answer is answered at once (PageCacheFirstDevice). Page writes leave FASTER's epoch before
        // any work is done on them (OffEpochWriteDevice). The outer wrapper keeps disposal from racing FASTER's background
        // truncation (see TruncationSafeDevice).
        var spares = new SegmentRecyclingDevice(
            Devices.CreateLogDevice(layout.LogBasePath, preallocateFile: true, deleteOnClose: settings.DeleteLogOnClose, recoverDevice: reopenExistingSegments),
            layout,
            timeProvider);
        IDevice segments = new PageCacheFirstDevice(spares);
        IDevice reporting = new FaultReportingDevice(settings.WrapDevice?.Invoke(segments, DeviceRole.HybridLog) ?? segments, fault, SegmentFiles);

        // A durable store checksums every sector it writes, so that recovery can tell damage from FASTER's empty space.
        SectorChecksums? checksums = settings.IsDurable ? new SectorChecksums(layout, settings.Directories) : null;
        IDevice checksummed = checksums is null ? reporting : new ChecksummingDevice(reporting, checksums, fault);
        CheckpointCommits? commits = settings.IsDurable ? new CheckpointCommits() : null;
        var device = new TruncationSafeDevice(new OffEpochWriteDevice(checksummed, fault, SegmentFiles), commits);
        try
        {
            var logSettings = new LogSettings
            {
                LogDevice = device,
                PageSizeBits = settings.PageSizeBits,
                MemorySizeBits = settings.MemorySizeBits,
                SegmentSizeBits = settings.SegmentSizeBits,
                MutableFraction = settings.LogMutableFraction,
            };

            if (!settings.IsDurable)
            {
                return (new FasterKV<SpanByte, SpanByte>(settings.IndexNumBuckets, logSettings), device, null, null, spares);
            }

            var checkpointFiles = new CheckpointDeviceFactory(
                new LocalStorageNamedDeviceFactory(),
                checkpointDevice => new FaultReportingDevice(settings.WrapDevice?.Invoke(checkpointDevice, DeviceRole.Checkpoint) ?? checkpointDevice, fault, "checkpoint files"),
                fault);

            // What FASTER would build from a checkpoint directory (and the sector checksums persisted before each
            // checkpoint's metadata), built here for its factory. RemoveOutdated keeps one
            // completed checkpoint: FASTER asks to delete the previous one once the new one's metadata is written (the
            // factory waits for the store's record, see CheckpointDeviceFactory). Its disposal does nothing, so the store
            // need not keep it.
            var checkpointManager = new ChecksumPersistingCheckpointManager(
                checkpointFiles, new DefaultCheckpointNamingScheme(new System.IO.DirectoryInfo(layout.CheckpointDirectory).FullName), checksums!, commits!, fault);
            var checkpointSettings = new CheckpointSettings { CheckpointManager = checkpointManager };
            return (new FasterKV<SpanByte, SpanByte>(settings.IndexNumBuckets, logSettings, checkpointSettings), device, checkpointFiles, commits, spares);
        }
        catch
        {
            device.Dispose();
            throw;
        }
    }

}
