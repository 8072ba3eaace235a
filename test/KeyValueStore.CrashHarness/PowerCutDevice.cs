using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// A device whose writes are in flight for a short random time (0 to 5 ms) before they reach the disk, and can be
/// lost or torn by a <see cref="PowerSwitch.Cut"/> while they are. A write completes, as with a real write-through
/// device, only once all of it is on the disk. After the cut nothing reaches the files: writes are dropped without
/// completing, and segment deletions are ignored.
/// </summary>
/// <remarks>
/// Holding a write back is safe: FASTER keeps a write's source buffer untouched until the write completes. Writes held
/// at the same time are issued in whatever order their delays end, so the disk sees them reordered, as it may.
/// </remarks>
internal sealed class PowerCutDevice(IDevice inner, PowerSwitch power) : DelegatingDevice(inner)
{
    private PowerSwitch Power { get; } = power;

    public override void WriteAsync(IntPtr sourceAddress, int segmentId, ulong destinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        Accept(new PendingWrite(this, sourceAddress, segmentId, destinationAddress, numBytesToWrite, callback, context));

    public override void WriteAsync(IntPtr alignedSourceAddress, ulong alignedDestinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context) =>
        Accept(new PendingWrite(this, alignedSourceAddress, segmentId: null, alignedDestinationAddress, numBytesToWrite, callback, context));

    public override void TruncateUntilAddress(long toAddress)
    {
        if (!Power.IsOff)
        {
            Inner.TruncateUntilAddress(toAddress);
        }
    }

    public override void TruncateUntilSegment(int toSegment)
    {
        if (!Power.IsOff)
        {
            Inner.TruncateUntilSegment(toSegment);
        }
    }

    public override void RemoveSegment(int segment)
    {
        if (!Power.IsOff)
        {
            Inner.RemoveSegment(segment);
        }
    }

    public override void TruncateUntilAddressAsync(long toAddress, AsyncCallback callback, IAsyncResult result)
    {
        if (!Power.IsOff)
        {
            Inner.TruncateUntilAddressAsync(toAddress, callback, result);
        }
    }

    public override void TruncateUntilSegmentAsync(int toSegment, AsyncCallback callback, IAsyncResult result)
    {
        if (!Power.IsOff)
        {
            Inner.TruncateUntilSegmentAsync(toSegment, callback, result);
        }
    }

    public override void RemoveSegmentAsync(int segment, AsyncCallback callback, IAsyncResult result)
    {
        if (!Power.IsOff)
        {
            Inner.RemoveSegmentAsync(segment, callback, result);
        }
    }

    private IDevice InnerDevice => Inner;

    private void Accept(PendingWrite write)
    {
        if (!Power.TryAccept(write))
        {
            return;
        }

        if (Power.LyingDisk)
        {
            write.CompleteEarly();
        }

        int delay = Power.NextIssueDelayMilliseconds();
        _ = delay == 0 ? Task.Run(write.IssueIfPowered) : Task.Delay(delay).ContinueWith(_ => write.IssueIfPowered(), TaskScheduler.Default);
    }

    /// <summary>One write accepted by the device and not yet issued to the disk.</summary>
    internal sealed class PendingWrite(
        PowerCutDevice device, IntPtr source, int? segmentId, ulong destination, uint length, DeviceIOCompletionCallback callback, object context)
    {
        private DeviceIOCompletionCallback _callback = callback;

        /// <summary>Reports the write complete now, before it is issued: a lying disk (see <see cref="PowerSwitch.LyingDisk"/>).</summary>
        public void CompleteEarly()
        {
            DeviceIOCompletionCallback callback = _callback;
            _callback = (_, _, _) => { };
            callback(0, length, context);
        }

        /// <summary>Issues the write whole, and completes it when the disk has it, unless the power went off first.</summary>
        public void IssueIfPowered()
        {
            if (device.Power.TryIssue(this))
            {
                IssueRange(0, length, _callback);
            }
        }

        /// <summary>
        /// Writes the sectors <paramref name="chosen"/> picks, and waits for them, without completing the write: the
        /// power is off, so no one learns of it. Used by <see cref="PowerSwitch.Cut"/>.
        /// </summary>
        public void WriteSectors(Func<int, bool> chosen)
        {
            uint sector = Math.Max(device.SectorSize, 1);
            int sectors = (int)((length + sector - 1) / sector);
            using var written = new CountdownEvent(1);
            for (int index = 0; index < sectors; index++)
            {
                if (!chosen(index))
                {
                    continue;
                }

                uint offset = (uint)index * sector;
                written.AddCount();
                IssueRange(offset, Math.Min(sector, length - offset), (_, _, _) => written.Signal());
            }

            written.Signal();
            if (!written.Wait(TimeSpan.FromSeconds(30)))
            {
                throw new TimeoutException("The sectors of a write torn by the power cut did not reach the disk within 30 s.");
            }
        }

        private void IssueRange(uint offset, uint count, DeviceIOCompletionCallback done)
        {
            if (segmentId is int segment)
            {
                device.InnerDevice.WriteAsync(source + (nint)offset, segment, destination + offset, count, done, context);
            }
            else
            {
                device.InnerDevice.WriteAsync(source + (nint)offset, destination + offset, count, done, context);
            }
        }
    }
}
