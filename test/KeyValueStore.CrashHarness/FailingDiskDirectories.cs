using System.IO;
using KeyValueStore.Storage;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// Directory flushes on the failing disk: once its <see cref="DiskFailure"/> fails, every flush throws an input/output
/// error, so the checkpoint record, new checkpoint folders and new write-ahead log segments fail with the disk too.
/// </summary>
internal sealed class FailingDiskDirectories(DiskFailure disk) : DirectoryDurability
{
    public override void Flush(string directory)
    {
        if (disk.HasFailed)
        {
            throw new IOException($"The directory '{directory}' could not be flushed to disk (the failing disk: input/output error).");
        }

        base.Flush(directory);
    }
}
