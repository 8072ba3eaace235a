using System;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// An <see cref="IDevice"/> that passes every call to the device under it. The store's device wrappers (and the
/// tests' fault-injecting devices) derive from it and override only the calls they change.
/// </summary>
internal abstract class DelegatingDevice(IDevice inner) : IDevice
{
    /// <summary>Gets the device under this one.</summary>
    protected IDevice Inner { get; } = inner;

    public uint SectorSize => Inner.SectorSize;

    public string FileName => Inner.FileName;

    public long Capacity => Inner.Capacity;

    public long SegmentSize => Inner.SegmentSize;

    public int StartSegment => Inner.StartSegment;

    public int EndSegment => Inner.EndSegment;

    public int ThrottleLimit
    {
        get => Inner.ThrottleLimit;
        set => Inner.ThrottleLimit = value;
    }

    public void Initialize(long segmentSize, LightEpoch? epoch = null, bool omitSegmentIdFromFilename = false) =>
        Inner.Initialize(segmentSize, epoch, omitSegmentIdFromFilename);

    public bool TryComplete() => Inner.TryComplete();

    public bool Throttle() => Inner.Throttle();

    public virtual void WriteAsync(IntPtr sourceAddress, int segmentId, ulong destinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        Inner.WriteAsync(sourceAddress, segmentId, destinationAddress, numBytesToWrite, callback, context);

    public virtual void WriteAsync(IntPtr alignedSourceAddress, ulong alignedDestinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        Inner.WriteAsync(alignedSourceAddress, alignedDestinationAddress, numBytesToWrite, callback, context);

    public virtual void ReadAsync(int segmentId, ulong sourceAddress, IntPtr destinationAddress, uint readLength, DeviceIOCompletionCallback callback, object context) =>
        Inner.ReadAsync(segmentId, sourceAddress, destinationAddress, readLength, callback, context);

    public virtual void ReadAsync(ulong alignedSourceAddress, IntPtr alignedDestinationAddress, uint aligned_read_length, DeviceIOCompletionCallback callback, object context) =>
        Inner.ReadAsync(alignedSourceAddress, alignedDestinationAddress, aligned_read_length, callback, context);

    public virtual void TruncateUntilAddress(long toAddress) => Inner.TruncateUntilAddress(toAddress);

    public virtual void TruncateUntilSegment(int toSegment) => Inner.TruncateUntilSegment(toSegment);

    public virtual void RemoveSegment(int segment) => Inner.RemoveSegment(segment);

    public virtual void TruncateUntilAddressAsync(long toAddress, AsyncCallback callback, IAsyncResult result) => Inner.TruncateUntilAddressAsync(toAddress, callback, result);

    public virtual void TruncateUntilSegmentAsync(int toSegment, AsyncCallback callback, IAsyncResult result) => Inner.TruncateUntilSegmentAsync(toSegment, callback, result);

    public virtual void RemoveSegmentAsync(int segment, AsyncCallback callback, IAsyncResult result) => Inner.RemoveSegmentAsync(segment, callback, result);

    public long GetFileSize(int segment) => Inner.GetFileSize(segment);

    public void Reset() => Inner.Reset();

    public virtual void Dispose() => Inner.Dispose();
}
