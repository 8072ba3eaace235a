using System.Threading;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// The disk under every <see cref="FailingDiskDevice"/> of one store: once <see cref="Fail"/> is called, every read and
/// write of those devices fails with an input/output error, as a disk that died under a running store.
/// </summary>
internal sealed class DiskFailure
{
    private int _failed;

    /// <summary>Gets whether the disk has failed.</summary>
    public bool HasFailed => Volatile.Read(ref _failed) != 0;

    /// <summary>Fails the disk: from now on every read and write of its devices fails.</summary>
    public void Fail() => Volatile.Write(ref _failed, 1);
}
