using System;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// The segment device of a durable store: records a checksum of every sector FASTER writes (<see cref="SectorChecksums"/>)
/// as the write is issued, and deletes a truncated segment's checksum file once the segment itself is gone.
/// </summary>
/// <remarks>
/// The checksum is taken from the very buffer handed to the disk, so it describes what FASTER meant to write, zeroed
/// gaps and invalid records included. After the store faulted no checksum file is deleted, as no segment is
/// (<see cref="FaultReportingDevice"/>): the next open needs both.
/// </remarks>
internal sealed class ChecksummingDevice(IDevice inner, SectorChecksums checksums, StoreFault fault) : DelegatingDevice(inner)
{
    public override void WriteAsync(IntPtr sourceAddress, int segmentId, ulong destinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context)
    {
        Record(segmentId, (long)destinationAddress, sourceAddress, numBytesToWrite);
        Inner.WriteAsync(sourceAddress, segmentId, destinationAddress, numBytesToWrite, callback, context);
    }

    public override void WriteAsync(IntPtr alignedSourceAddress, ulong alignedDestinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context)
    {
        long segmentSize = Inner.SegmentSize;
        Record((long)alignedDestinationAddress / segmentSize, (long)alignedDestinationAddress % segmentSize, alignedSourceAddress, numBytesToWrite);
        Inner.WriteAsync(alignedSourceAddress, alignedDestinationAddress, numBytesToWrite, callback, context);
    }

    public override void TruncateUntilAddress(long toAddress)
    {
        Inner.TruncateUntilAddress(toAddress);
        ForgetBelow(toAddress / Inner.SegmentSize);
    }

    public override void TruncateUntilSegment(int toSegment)
    {
        Inner.TruncateUntilSegment(toSegment);
        ForgetBelow(toSegment);
    }

    public override void RemoveSegment(int segment)
    {
        Inner.RemoveSegment(segment);
        Forget(segment);
    }

    public override void TruncateUntilAddressAsync(long toAddress, AsyncCallback callback, IAsyncResult result) =>
        Inner.TruncateUntilAddressAsync(toAddress, AfterwardsForgetBelow(toAddress / Inner.SegmentSize, callback), result);

    public override void TruncateUntilSegmentAsync(int toSegment, AsyncCallback callback, IAsyncResult result) =>
        Inner.TruncateUntilSegmentAsync(toSegment, AfterwardsForgetBelow(toSegment, callback), result);

    public override void RemoveSegmentAsync(int segment, AsyncCallback callback, IAsyncResult result) =>
        Inner.RemoveSegmentAsync(segment, completed =>
        {
            Forget(segment);
            callback(completed);
        }, result);

    private unsafe void Record(long segment, long offset, IntPtr source, uint length) =>
        checksums.Record(segment, offset, new ReadOnlySpan<byte>((void*)source, checked((int)length)));

    private AsyncCallback AfterwardsForgetBelow(long segment, AsyncCallback callback) => completed =>
    {
        ForgetBelow(segment);
        callback(completed);
    };

    private void ForgetBelow(long segment)
    {
        if (!fault.IsFaulted)
        {
            checksums.ForgetBelow(segment);
        }
    }

    private void Forget(long segment)
    {
        if (!fault.IsFaulted)
        {
            checksums.Forget(segment);
        }
    }
}
