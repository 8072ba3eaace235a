using System;
using System.Threading;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// Hands each write FASTER asks for to the devices under it from a thread-pool thread, so that the caller returns at
/// once. Reads and everything else pass straight through.
/// </summary>
/// <remarks>
/// Why: FASTER issues a page flush from inside its epoch (the action that runs once pages turn read-only), and a
/// durable store's sector checksums (<see cref="ChecksummingDevice"/>, about half a millisecond per 2 MB page here)
/// and FASTER's own file device (a lock, a seek, a new segment file now and then: up to 8 ms measured on the 2-core VM)
/// did their work on that thread, which stayed inside the epoch meanwhile. A checkpoint cannot leave its in-progress
/// phase until every thread inside the epoch has seen it, so it held the writers it had paused for as long as a run of
/// page writes took: 1.1 ms at the median, up to 19 ms, in a Commit-mode load test (issue 18, docs/benchmarks.md, "Page
/// writes issued outside FASTER's epoch").
/// <para>
/// Nothing FASTER relies on changes: a write is complete when its callback runs, which is still after the write
/// itself; FASTER issues a write that overlaps an earlier one (a partial page's next part) only after the earlier
/// one's callback; the buffer stays FASTER's until the callback. A write that throws before the device under it takes
/// it faults the store and completes with an error, as a failed write does.
/// </para>
/// </remarks>
internal sealed class OffEpochWriteDevice(IDevice inner, StoreFault fault, string what) : DelegatingDevice(inner)
{
    private readonly StoreFault _fault = fault;
    private readonly string _what = what;
    private int _handingOver;
    private int _disposed;

    public override void WriteAsync(IntPtr sourceAddress, int segmentId, ulong destinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        HandOver(new SegmentWrite(this, sourceAddress, segmentId, destinationAddress, numBytesToWrite, callback, context));

    public override void WriteAsync(IntPtr alignedSourceAddress, ulong alignedDestinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        HandOver(new SegmentWrite(this, alignedSourceAddress, SegmentWrite.AcrossSegments, alignedDestinationAddress, numBytesToWrite, callback, context));

    /// <summary>Waits until every write already asked for is in the hands of the device under this one, then disposes it.</summary>
    public override void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        SpinWait wait = default;
        while (Volatile.Read(ref _handingOver) != 0)
        {
            wait.SpinOnce();
        }

        Inner.Dispose();
    }

    private void HandOver(SegmentWrite write)
    {
        Interlocked.Increment(ref _handingOver);
        ThreadPool.UnsafeQueueUserWorkItem(static write => write.Issue(), write, preferLocal: false);
    }

    /// <summary>One write on its way to the device under this one; it completes FASTER's callback exactly once.</summary>
    private sealed class SegmentWrite(
        OffEpochWriteDevice device,
        IntPtr source,
        int segmentId,
        ulong destination,
        uint length,
        DeviceIOCompletionCallback callback,
        object context)
    {
        /// <summary>The write names an address across segments, not a segment and an offset in it.</summary>
        public const int AcrossSegments = -1;

        private int _completed;

        public void Issue()
        {
            try
            {
                if (segmentId == AcrossSegments)
                {
                    device.Inner.WriteAsync(source, destination, length, Complete, context);
                }
                else
                {
                    device.Inner.WriteAsync(source, segmentId, destination, length, Complete, context);
                }
            }
            catch (Exception e)
            {
                // On a pool thread nothing above would catch it: the store faults instead, and FASTER hears of a failed
                // write unless the device under this one already completed it.
                device._fault.Report(device._what, e);
                if (Interlocked.Exchange(ref _completed, 1) == 0)
                {
                    try
                    {
                        callback(uint.MaxValue, 0, context);
                    }
                    catch (Exception callbackFailure)
                    {
                        device._fault.Report(device._what, callbackFailure);
                    }
                }
            }
            finally
            {
                Interlocked.Decrement(ref device._handingOver);
            }
        }

        private void Complete(uint errorCode, uint numBytes, object context)
        {
            Interlocked.Exchange(ref _completed, 1);
            callback(errorCode, numBytes, context);
        }
    }
}
