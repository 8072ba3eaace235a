using System;
using System.Collections.Generic;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// FASTER's factory for checkpoint files, with two changes: every device it hands out is passed through a wrapper
/// first (the store's <see cref="FaultReportingDevice"/>, and in fault-injection tests the test's device), and the
/// checkpoints FASTER deletes are deleted only once the store has recorded the checkpoint that replaces them
/// (<see cref="DeleteReplacedCheckpoints"/>), never after a fault.
/// </summary>
/// <remarks>
/// FASTER 2.6.5 deletes the previous checkpoint as soon as the new one's metadata is written. The store's checkpoint
/// record (Durability/CheckpointRecord) is written after that; if its write failed (a full disk), the record would
/// name a checkpoint that no longer exists and the store would not open again. FASTER also completes a checkpoint
/// whose metadata failed to write, so after a fault nothing is deleted at all.
/// </remarks>
internal sealed class CheckpointDeviceFactory(INamedDeviceFactory inner, Func<IDevice, IDevice> wrap, StoreFault fault) : INamedDeviceFactory
{
    private readonly List<FileDescriptor> _replaced = [];

    public void Initialize(string baseName) => inner.Initialize(baseName);

    public IDevice Get(FileDescriptor fileInfo) => wrap(inner.Get(fileInfo));

    /// <summary>Keeps FASTER's delete for <see cref="DeleteReplacedCheckpoints"/>.</summary>
    public void Delete(FileDescriptor fileInfo)
    {
        lock (_replaced)
        {
            _replaced.Add(fileInfo);
        }
    }

    public IEnumerable<FileDescriptor> ListContents(string path) => inner.ListContents(path);

    /// <summary>
    /// Deletes the checkpoints FASTER has replaced. Call once the checkpoint record names the checkpoint that replaced
    /// them (or, after recovery, the one recovered); does nothing once the store has faulted.
    /// </summary>
    public void DeleteReplacedCheckpoints()
    {
        FileDescriptor[] replaced;
        lock (_replaced)
        {
            if (fault.IsFaulted)
            {
                return;
            }

            replaced = [.. _replaced];
            _replaced.Clear();
        }

        foreach (FileDescriptor files in replaced)
        {
            inner.Delete(files);
        }
    }
}
