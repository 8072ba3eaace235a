using System;
using System.Threading;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// A device that works until its <see cref="DiskFailure"/> fails, then completes every read and write with an
/// input/output error and touches nothing, the way FASTER's devices report a disk that stopped answering.
/// </summary>
/// <remarks>
/// The store's FASTER devices fail, and with them the write-ahead log's commit file (<see cref="FailingDiskCommitFile"/>)
/// and every directory flush (<see cref="FailingDiskDirectories"/>, which the checkpoint record's atomic write needs);
/// the writes of the sector-checksum files and of the record itself still work. The store must stop acknowledging
/// writes either way, since every write and every checkpoint needs one of these devices.
/// </remarks>
internal sealed class FailingDiskDevice(IDevice inner, DiskFailure disk) : DelegatingDevice(inner)
{
    /// <summary>EIO, which FASTER's file devices pass on from the operating system.</summary>
    private const uint InputOutputError = 5;

    public override void WriteAsync(IntPtr sourceAddress, int segmentId, ulong destinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context)
    {
        if (!FailedFor(callback, context))
        {
            Inner.WriteAsync(sourceAddress, segmentId, destinationAddress, numBytesToWrite, callback, context);
        }
    }

    public override void WriteAsync(IntPtr alignedSourceAddress, ulong alignedDestinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context)
    {
        if (!FailedFor(callback, context))
        {
            Inner.WriteAsync(alignedSourceAddress, alignedDestinationAddress, numBytesToWrite, callback, context);
        }
    }

    public override void ReadAsync(int segmentId, ulong sourceAddress, IntPtr destinationAddress, uint readLength, DeviceIOCompletionCallback callback, object context)
    {
        if (!FailedFor(callback, context))
        {
            Inner.ReadAsync(segmentId, sourceAddress, destinationAddress, readLength, callback, context);
        }
    }

    public override void ReadAsync(ulong alignedSourceAddress, IntPtr alignedDestinationAddress, uint aligned_read_length, DeviceIOCompletionCallback callback, object context)
    {
        if (!FailedFor(callback, context))
        {
            Inner.ReadAsync(alignedSourceAddress, alignedDestinationAddress, aligned_read_length, callback, context);
        }
    }

    /// <summary>Once the disk has failed, completes the request with the error on a pool thread, as a device's completion comes; false before.</summary>
    private bool FailedFor(DeviceIOCompletionCallback callback, object context)
    {
        if (!disk.HasFailed)
        {
            return false;
        }

        ThreadPool.UnsafeQueueUserWorkItem(_ => callback(InputOutputError, 0, context), null);
        return true;
    }
}
