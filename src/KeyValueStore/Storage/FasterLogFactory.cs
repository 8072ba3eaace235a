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
    public static (FasterKV<SpanByte, SpanByte> Store, TruncationSafeDevice Device) Create(StoreSettings settings, LogFileLayout layout, bool reopenExistingSegments)
    {
        // Preallocating segments trades disk space for fewer file-extension stalls while flushing pages.
        // The wrapper keeps disposal from racing FASTER's background truncation (see TruncationSafeDevice).
        var device = new TruncationSafeDevice(
            Devices.CreateLogDevice(layout.LogBasePath, preallocateFile: true, deleteOnClose: settings.DeleteLogOnClose, recoverDevice: reopenExistingSegments));
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
                ? new CheckpointSettings { CheckpointDir = layout.CheckpointDirectory, RemoveOutdated = true }
                : null;
            return (new FasterKV<SpanByte, SpanByte>(settings.IndexNumBuckets, logSettings, checkpointSettings), device);
        }
        catch
        {
            device.Dispose();
            throw;
        }
    }
}
