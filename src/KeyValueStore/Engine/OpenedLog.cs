using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// The FASTER store an engine runs on, the fault its devices report to, and the files, device and directory lock it
/// owns; all three are null when the caller built the store and keeps owning it (its device failures are then the
/// caller's to see). <paramref name="Spares"/> is the part of <paramref name="Device"/> keeping emptied segment files for
/// reuse, which count as the store's disk use.
/// </summary>
internal sealed record OpenedLog(FasterKV<SpanByte, SpanByte> FasterKV, StoreFault Fault, TruncationSafeDevice? Device, LogFileLayout? Layout, StoreFileLock? Lock, SegmentRecyclingDevice? Spares = null)
{
    /// <summary>A caller's store, which the engine neither disposes nor deletes.</summary>
    public static OpenedLog Supplied(FasterKV<SpanByte, SpanByte> fasterKV) => new(fasterKV, new StoreFault(), null, null, null);

    /// <summary>Disposes an owned store and its device, then gives up the directory lock; deletes the lock file too when <paramref name="deleteFiles"/>.</summary>
    public void Release(bool deleteFiles)
    {
        try
        {
            if (Device is not null)
            {
                // Truncations run inside the FasterKV's epoch: let them finish before it goes.
                Device.StopTruncations();
                FasterKV.Dispose();
                Device.Dispose();
            }
        }
        finally
        {
            if (deleteFiles)
            {
                Lock?.ReleaseAndDelete();
            }
            else
            {
                Lock?.Dispose();
            }
        }
    }
}
