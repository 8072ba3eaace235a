using System;
using System.Collections.Concurrent;
using System.IO;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// Completes the first write into each segment file only once the segment's directory (and the one above it) is
/// flushed (<see cref="DirectoryDurability"/>), so that a segment created since the last flush cannot vanish at a power
/// cut with writes in it that were acknowledged. FASTER creates segment files as the log reaches them and flushes only
/// their data.
/// </summary>
/// <remarks>
/// Used for the write-ahead log, whose commits are acknowledged between checkpoints. The store's own segments need no
/// such device: a checkpoint flushes their directory before its record names it (see <c>Checkpointer</c>). A failed
/// flush completes the write with an I/O error, which the store's fault then reports.
/// </remarks>
internal sealed class SegmentDirectoryDurableDevice(IDevice inner, DirectoryDurability directories) : DelegatingDevice(inner)
{
    // errno EIO, what a failed directory flush is reported as.
    private const uint InputOutputError = 5;

    private readonly ConcurrentDictionary<long, bool> _flushed = new();

    public override void WriteAsync(IntPtr sourceAddress, int segmentId, ulong destinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        Inner.WriteAsync(sourceAddress, segmentId, destinationAddress, numBytesToWrite, FlushingFirst(segmentId, callback), context);

    public override void WriteAsync(IntPtr alignedSourceAddress, ulong alignedDestinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        Inner.WriteAsync(alignedSourceAddress, alignedDestinationAddress, numBytesToWrite, FlushingFirst(SegmentOf(alignedDestinationAddress), callback), context);

    private long SegmentOf(ulong address) => Inner.SegmentSize > 0 ? (long)(address / (ulong)Inner.SegmentSize) : 0;

    private DeviceIOCompletionCallback FlushingFirst(long segment, DeviceIOCompletionCallback callback)
    {
        if (_flushed.ContainsKey(segment))
        {
            return callback;
        }

        return (errorCode, numBytes, context) =>
        {
            if (errorCode == 0 && !_flushed.ContainsKey(segment))
            {
                try
                {
                    string directory = Path.GetDirectoryName(Path.GetFullPath(FileName))!;
                    directories.Flush(directory);
                    directories.Flush(Path.GetDirectoryName(directory) ?? directory);
                    _flushed[segment] = true;
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    errorCode = InputOutputError;
                }
            }

            callback(errorCode, numBytes, context);
        };
    }
}
