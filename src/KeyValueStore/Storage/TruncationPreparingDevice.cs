using System;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// A <see cref="DelegatingDevice"/> that does a step of its own before each truncation or segment removal is passed
/// on, whichever of FASTER's six calls for it arrives: the devices that must let go of a segment's files before FASTER's
/// device does derive from it.
/// </summary>
internal abstract class TruncationPreparingDevice(IDevice inner) : DelegatingDevice(inner)
{
    public sealed override void TruncateUntilAddress(long toAddress)
    {
        PrepareToTruncateBelow(SegmentOf(toAddress));
        Inner.TruncateUntilAddress(toAddress);
    }

    public sealed override void TruncateUntilAddressAsync(long toAddress, AsyncCallback callback, IAsyncResult result)
    {
        PrepareToTruncateBelow(SegmentOf(toAddress));
        Inner.TruncateUntilAddressAsync(toAddress, callback, result);
    }

    public sealed override void TruncateUntilSegment(int toSegment)
    {
        PrepareToTruncateBelow(toSegment);
        Inner.TruncateUntilSegment(toSegment);
    }

    public sealed override void TruncateUntilSegmentAsync(int toSegment, AsyncCallback callback, IAsyncResult result)
    {
        PrepareToTruncateBelow(toSegment);
        Inner.TruncateUntilSegmentAsync(toSegment, callback, result);
    }

    public sealed override void RemoveSegment(int segment)
    {
        PrepareToRemove(segment);
        Inner.RemoveSegment(segment);
    }

    public sealed override void RemoveSegmentAsync(int segment, AsyncCallback callback, IAsyncResult result)
    {
        PrepareToRemove(segment);
        Inner.RemoveSegmentAsync(segment, callback, result);
    }

    /// <summary>Gets the segment holding <paramref name="address"/>; 0 when the device has no segments.</summary>
    protected int SegmentOf(long address) => SegmentSize > 0 ? (int)(address / SegmentSize) : 0;

    /// <summary>Called before the segments below <paramref name="toSegment"/> are truncated.</summary>
    protected abstract void PrepareToTruncateBelow(int toSegment);

    /// <summary>Called before segment <paramref name="segment"/> alone is removed.</summary>
    protected abstract void PrepareToRemove(int segment);
}
