using System;
using System.Collections.Generic;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// FASTER's factory for checkpoint files, with every device it hands out passed through a wrapper first, so that a
/// fault-injection test sees checkpoint writes as it sees the log's.
/// </summary>
internal sealed class WrappingDeviceFactory(INamedDeviceFactory inner, Func<IDevice, IDevice> wrap) : INamedDeviceFactory
{
    public void Initialize(string baseName) => inner.Initialize(baseName);

    public IDevice Get(FileDescriptor fileInfo) => wrap(inner.Get(fileInfo));

    public void Delete(FileDescriptor fileInfo) => inner.Delete(fileInfo);

    public IEnumerable<FileDescriptor> ListContents(string path) => inner.ListContents(path);
}
