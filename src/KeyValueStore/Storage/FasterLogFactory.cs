using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// Builds the FASTER device and <see cref="FasterKV{Key, Value}"/> a store owns, from validated settings.
/// </summary>
internal static class FasterLogFactory
{
    /// <summary>Builds the log on <paramref name="layout"/>'s files; a durable store also gets FASTER's checkpoint directory.</summary>
    /// <param name="settings">The validated settings.</param>
    /// <param name="layout">Where the files are. The directory must already be known to be writable.</param>
    /// <param name="reopenExistingSegments">
    /// Whether segment files already on disk belong to this log (a durable store being recovered): the device then
    /// learns which segments exist, so truncation and recovery know where the log starts.
    /// </param>
    /// <param name="fault">Receives the first failed write to the segment files.</param>
    public static (FasterKV<SpanByte, SpanByte> Store, TruncationSafeDevice Device) Create(StoreSettings settings, LogFileLayout layout, bool reopenExistingSegments, StoreFault fault)
    {
        // Preallocating segments trades disk space for fewer file-extension stalls while flushing pages.
        // The wrapper keeps disposal from racing FASTER's background truncation (see TruncationSafeDevice).
        IDevice segments = Devices.CreateLogDevice(layout.LogBasePath, preallocateFile: true, deleteOnClose: settings.DeleteLogOnClose, recoverDevice: reopenExistingSegments);
        var device = new TruncationSafeDevice(new FaultReportingDevice(settings.WrapDevice?.Invoke(segments, DeviceRole.HybridLog) ?? segments, fault, "log segment files"));
        try
        {
            var logSettings = new LogSettings
            {
                LogDevice = device,
                PageSizeBits = settings.PageSizeBits,
                MemorySizeBits = settings.MemorySizeBits,
                SegmentSizeBits = settings.SegmentSizeBits,
            };

            // RemoveOutdated keeps one completed checkpoint: FASTER deletes the previous one after the new one's metadata
            // is written, and then deletes the segment files below the new checkpoint's begin address.
            CheckpointSettings? checkpointSettings = settings.IsDurable
                ? new CheckpointSettings { CheckpointManager = CheckpointManager(settings, layout, fault) }
                : null;
            return (new FasterKV<SpanByte, SpanByte>(settings.IndexNumBuckets, logSettings, checkpointSettings), device);
        }
        catch
        {
            device.Dispose();
            throw;
        }
    }

    /// <summary>
    /// The checkpoint manager FASTER would build from a checkpoint directory, built here so that its devices report
    /// failed writes to the store's fault (<see cref="WrappingDeviceFactory"/>). Its disposal does nothing, so the store
    /// need not keep it.
    /// </summary>
    private static DeviceLogCommitCheckpointManager CheckpointManager(StoreSettings settings, LogFileLayout layout, StoreFault fault)
    {
        var files = new WrappingDeviceFactory(
            new LocalStorageNamedDeviceFactory(),
            device => new FaultReportingDevice(settings.WrapDevice?.Invoke(device, DeviceRole.Checkpoint) ?? device, fault, "checkpoint files"),
            fault);
        return new DeviceLogCommitCheckpointManager(files, new DefaultCheckpointNamingScheme(new System.IO.DirectoryInfo(layout.CheckpointDirectory).FullName), removeOutdated: true);
    }
}
