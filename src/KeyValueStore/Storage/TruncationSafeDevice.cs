using System;
using System.Threading;
using FASTER.core;
using KeyValueStore.Sessions;

namespace KeyValueStore.Storage;

/// <summary>
/// Wraps the log device so that disposing it never overlaps a truncation. Everything else is passed
/// through unchanged.
/// </summary>
/// <remarks>
/// Why: FASTER runs log truncation on a background task (<c>Task.Run(() =&gt; device.TruncateUntilAddress(..))</c>)
/// that nothing can await. In FASTER 2.6.5, <c>ManagedLocalStorageDevice.RemoveSegment</c> (called by
/// truncation) and <c>ManagedLocalStorageDevice.Dispose</c> both dispose the segment's handle pool,
/// and two concurrent disposals of one pool can leave one waiting forever for a handle the other
/// took. We saw exactly that hang in the compaction benchmark when a store closed right after a
/// compaction. Here truncations pass an <see cref="OperationGate"/>. <see cref="StopTruncations"/>
/// closes the gate and waits for those in flight; the store calls it before disposing its
/// <c>FasterKV</c>, because a truncation runs inside the store's epoch, and waiting for one after the
/// epoch is gone left it spinning on freed memory (the second hang we saw). Truncations that arrive
/// after the gate closed are dropped: the store is closing, and its segments are deleted on close
/// anyway when <c>DeleteLogOnClose</c> is set.
/// </remarks>
internal sealed class TruncationSafeDevice : IDevice
{
    private readonly IDevice _inner;
    private readonly OperationGate _truncations = new();
    private int _disposed;

    public TruncationSafeDevice(IDevice inner)
    {
        _inner = inner;
    }

    public uint SectorSize => _inner.SectorSize;

    public string FileName => _inner.FileName;

    public long Capacity => _inner.Capacity;

    public long SegmentSize => _inner.SegmentSize;

    public int StartSegment => _inner.StartSegment;

    public int EndSegment => _inner.EndSegment;

    public int ThrottleLimit
    {
        get => _inner.ThrottleLimit;
        set => _inner.ThrottleLimit = value;
    }

    public void Initialize(long segmentSize, LightEpoch? epoch = null, bool omitSegmentIdFromFilename = false) =>
        _inner.Initialize(segmentSize, epoch, omitSegmentIdFromFilename);

    public bool TryComplete() => _inner.TryComplete();

    public bool Throttle() => _inner.Throttle();

    public void WriteAsync(IntPtr sourceAddress, int segmentId, ulong destinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        _inner.WriteAsync(sourceAddress, segmentId, destinationAddress, numBytesToWrite, callback, context);

    public void ReadAsync(int segmentId, ulong sourceAddress, IntPtr destinationAddress, uint readLength, DeviceIOCompletionCallback callback, object context) =>
        _inner.ReadAsync(segmentId, sourceAddress, destinationAddress, readLength, callback, context);

    public void WriteAsync(IntPtr alignedSourceAddress, ulong alignedDestinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        _inner.WriteAsync(alignedSourceAddress, alignedDestinationAddress, numBytesToWrite, callback, context);

    public void ReadAsync(ulong alignedSourceAddress, IntPtr alignedDestinationAddress, uint aligned_read_length, DeviceIOCompletionCallback callback, object context) =>
        _inner.ReadAsync(alignedSourceAddress, alignedDestinationAddress, aligned_read_length, callback, context);

    public void TruncateUntilAddress(long toAddress) => Truncate(() => _inner.TruncateUntilAddress(toAddress));

    public void TruncateUntilSegment(int toSegment) => Truncate(() => _inner.TruncateUntilSegment(toSegment));

    public void RemoveSegment(int segment) => Truncate(() => _inner.RemoveSegment(segment));

    public void TruncateUntilAddressAsync(long toAddress, AsyncCallback callback, IAsyncResult result) =>
        TruncateAsync(wrapped => _inner.TruncateUntilAddressAsync(toAddress, wrapped, result), callback, result);

    public void TruncateUntilSegmentAsync(int toSegment, AsyncCallback callback, IAsyncResult result) =>
        TruncateAsync(wrapped => _inner.TruncateUntilSegmentAsync(toSegment, wrapped, result), callback, result);

    public void RemoveSegmentAsync(int segment, AsyncCallback callback, IAsyncResult result) =>
        TruncateAsync(wrapped => _inner.RemoveSegmentAsync(segment, wrapped, result), callback, result);

    public long GetFileSize(int segment) => _inner.GetFileSize(segment);

    public void Reset() => _inner.Reset();

    /// <summary>
    /// Drops truncations from now on and waits for those in flight. Call while the <c>FasterKV</c> the
    /// device belongs to is still alive: truncations in flight need its epoch to finish. Idempotent.
    /// </summary>
    public void StopTruncations()
    {
        _truncations.Close();
        _truncations.WhenDrained.GetAwaiter().GetResult();
    }

    /// <summary>Stops truncations (see <see cref="StopTruncations"/>), then disposes the inner device. Idempotent.</summary>
    public void Dispose()
    {
        StopTruncations();
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _inner.Dispose();
        }
    }

    private void Truncate(Action truncate)
    {
        if (!_truncations.TryEnter())
        {
            return;
        }

        try
        {
            truncate();
        }
        finally
        {
            _truncations.Exit();
        }
    }

    private void TruncateAsync(Action<AsyncCallback> start, AsyncCallback callback, IAsyncResult result)
    {
        if (!_truncations.TryEnter())
        {
            callback(result);
            return;
        }

        try
        {
            start(completed =>
            {
                try
                {
                    callback(completed);
                }
                finally
                {
                    _truncations.Exit();
                }
            });
        }
        catch
        {
            _truncations.Exit();
            throw;
        }
    }
}
