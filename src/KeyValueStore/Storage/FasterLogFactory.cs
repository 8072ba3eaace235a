using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// Builds the FASTER device and <see cref="FasterKV{Key, Value}"/> a store owns, from validated settings.
/// </summary>
internal static class FasterLogFactory
{
    public static (FasterKV<SpanByte, SpanByte> Store, TruncationSafeDevice Device) Create(StoreSettings settings, LogFileLayout layout)
    {
        layout.EnsureWritable();

        // Preallocating segments trades disk space for fewer file-extension stalls while flushing pages.
        // The wrapper keeps disposal from racing FASTER's background truncation (see TruncationSafeDevice).
        var device = new TruncationSafeDevice(
            Devices.CreateLogDevice(layout.LogBasePath, preallocateFile: true, deleteOnClose: settings.DeleteLogOnClose));
        try
        {
            var logSettings = new LogSettings
            {
                LogDevice = device,
                PageSizeBits = settings.PageSizeBits,
                MemorySizeBits = settings.MemorySizeBits,
                SegmentSizeBits = settings.SegmentSizeBits,
            };
            return (new FasterKV<SpanByte, SpanByte>(settings.IndexNumBuckets, logSettings), device);
        }
        catch
        {
            device.Dispose();
            throw;
        }
    }
}
