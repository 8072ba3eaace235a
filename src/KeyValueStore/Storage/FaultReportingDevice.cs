using System;
using System.IO;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// Passes every call to the device under it and reports the first failed write or read to the store's
/// <see cref="StoreFault"/>. FASTER 2.6.5 only logs a failed page flush and then waits for that page forever, so
/// without this a full disk would hang every write and every checkpoint; and it only logs a failed read and then
/// parses whatever the read buffer held.
/// </summary>
/// <remarks>
/// A failed read's buffer is zeroed before FASTER sees it: FASTER then takes it for an empty record and the read
/// ends as not found, which the store, seeing the fault, turns into <see cref="StoreFaultedException"/> for its caller.
/// Once the store has faulted no segment file is deleted: a compaction that read garbage must not take the files with
/// it, and the next open recovers from what is on disk.
/// </remarks>
internal sealed class FaultReportingDevice(IDevice inner, StoreFault fault, string what) : DelegatingDevice(inner)
{
    public override void WriteAsync(IntPtr sourceAddress, int segmentId, ulong destinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        Inner.WriteAsync(sourceAddress, segmentId, destinationAddress, numBytesToWrite, Watch(callback), context);

    public override void WriteAsync(IntPtr alignedSourceAddress, ulong alignedDestinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        Inner.WriteAsync(alignedSourceAddress, alignedDestinationAddress, numBytesToWrite, Watch(callback), context);

    public override void ReadAsync(int segmentId, ulong sourceAddress, IntPtr destinationAddress, uint readLength, DeviceIOCompletionCallback callback, object context) =>
        Inner.ReadAsync(segmentId, sourceAddress, destinationAddress, readLength, ReadWatch.Completed, ReadWatch.Take(this, callback, context, destinationAddress, readLength));

    public override void ReadAsync(ulong alignedSourceAddress, IntPtr alignedDestinationAddress, uint aligned_read_length, DeviceIOCompletionCallback callback, object context) =>
        Inner.ReadAsync(alignedSourceAddress, alignedDestinationAddress, aligned_read_length, ReadWatch.Completed, ReadWatch.Take(this, callback, context, alignedDestinationAddress, aligned_read_length));

    public override void TruncateUntilAddress(long toAddress)
    {
        if (!fault.IsFaulted)
        {
            Inner.TruncateUntilAddress(toAddress);
        }
    }

    public override void TruncateUntilSegment(int toSegment)
    {
        if (!fault.IsFaulted)
        {
            Inner.TruncateUntilSegment(toSegment);
        }
    }

    public override void RemoveSegment(int segment)
    {
        if (!fault.IsFaulted)
        {
            Inner.RemoveSegment(segment);
        }
    }

    public override void TruncateUntilAddressAsync(long toAddress, AsyncCallback callback, IAsyncResult result)
    {
        if (fault.IsFaulted)
        {
            callback?.Invoke(result);
            return;
        }

        Inner.TruncateUntilAddressAsync(toAddress, callback, result);
    }

    public override void TruncateUntilSegmentAsync(int toSegment, AsyncCallback callback, IAsyncResult result)
    {
        if (fault.IsFaulted)
        {
            callback?.Invoke(result);
            return;
        }

        Inner.TruncateUntilSegmentAsync(toSegment, callback, result);
    }

    public override void RemoveSegmentAsync(int segment, AsyncCallback callback, IAsyncResult result)
    {
        if (fault.IsFaulted)
        {
            callback?.Invoke(result);
            return;
        }

        Inner.RemoveSegmentAsync(segment, callback, result);
    }

    // A closure per write: writes are whole pages or more, so it is small next to the write itself.
    private DeviceIOCompletionCallback Watch(DeviceIOCompletionCallback callback) => (errorCode, numBytes, context) =>
    {
        if (errorCode != 0)
        {
            fault.Report(what, new IOException($"A write to '{FileName}' failed: {Describe(errorCode)} (error {errorCode})."));
        }

        callback(errorCode, numBytes, context);
    };

    /// <summary>Reports a failed read and zeroes what it left in <paramref name="destination"/>, before FASTER parses it.</summary>
    private unsafe void ReadFailed(uint errorCode, IntPtr destination, uint length)
    {
        fault.Report(what, new IOException($"A read of '{FileName}' failed: {Describe(errorCode)} (error {errorCode})."));
        new Span<byte>((void*)destination, checked((int)length)).Clear();
    }

    /// <summary>
    /// One read in flight, watched: the caller's completion and context, and the buffer to zero if the read fails. Reused:
    /// a completed watch becomes its thread's spare before the caller's completion runs, so the read FASTER issues from
    /// inside that completion (a record longer than its first read) takes it again.
    /// </summary>
    /// <remarks>
    /// Why not a closure per read, as writes have: a read the page cache answers takes about 2 µs, and the closure and
    /// its delegate were 213 of the 608 bytes the engine allocated per read from the disk (docs/benchmarks.md, "A read
    /// from the disk without a closure"). A watch lost to a read that threw instead of completing is collected.
    /// </remarks>
    private sealed class ReadWatch
    {
        public static readonly DeviceIOCompletionCallback Completed = static (errorCode, numBytes, context) => ((ReadWatch)context).Complete(errorCode, numBytes);

        [ThreadStatic]
        private static ReadWatch? t_spare;

        private FaultReportingDevice? _device;
        private DeviceIOCompletionCallback? _callback;
        private object? _context;
        private IntPtr _destination;
        private uint _length;

        public static ReadWatch Take(FaultReportingDevice device, DeviceIOCompletionCallback callback, object context, IntPtr destination, uint length)
        {
            ReadWatch watch = t_spare ?? new ReadWatch();
            t_spare = null;
            watch._device = device;
            watch._callback = callback;
            watch._context = context;
            watch._destination = destination;
            watch._length = length;
            return watch;
        }

        private void Complete(uint errorCode, uint numBytes)
        {
            (FaultReportingDevice device, DeviceIOCompletionCallback callback, object? context) = (_device!, _callback!, _context);
            if (errorCode != 0)
            {
                device.ReadFailed(errorCode, _destination, _length);
            }

            _device = null;
            _callback = null;
            _context = null;
            t_spare = this;
            callback(errorCode, numBytes, context!);
        }
    }

    private static string Describe(uint errorCode) => errorCode switch
    {
        28 => "no space left on the device",
        5 => "an input/output error",
        uint.MaxValue => "the device could not issue it",
        _ => "an I/O error",
    };
}
