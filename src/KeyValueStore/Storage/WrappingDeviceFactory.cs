using System;
using System.Collections.Generic;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// FASTER's factory for checkpoint files, with every device it hands out passed through a wrapper first (the store's
/// <see cref="FaultReportingDevice"/>, and in fault-injection tests the test's device), and no file deleted once the
/// store has faulted.
/// </summary>
/// <remarks>
/// FASTER 2.6.5 logs a failed write of a checkpoint's metadata and carries on: the checkpoint completes, and FASTER then
/// deletes the previous one, the only complete checkpoint left. Refusing deletes after a fault keeps that one.
/// </remarks>
internal sealed class WrappingDeviceFactory(INamedDeviceFactory inner, Func<IDevice, IDevice> wrap, StoreFault fault) : INamedDeviceFactory
{
    public void Initialize(string baseName) => inner.Initialize(baseName);

    public IDevice Get(FileDescriptor fileInfo) => wrap(inner.Get(fileInfo));

    public void Delete(FileDescriptor fileInfo)
    {
        if (!fault.IsFaulted)
        {
            inner.Delete(fileInfo);
        }
    }

    public IEnumerable<FileDescriptor> ListContents(string path) => inner.ListContents(path);
}
