using System;
using System.IO;
using System.Threading;
using FASTER.core;
using KeyValueStore.Durability;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// The write-ahead log's commit file on the failing disk: once its <see cref="DiskFailure"/> fails, every metadata
/// write throws an input/output error, as the file's own write would. Also used by the library's disk-failure tests.
/// </summary>
internal sealed class FailingDiskCommitFile(ILogCommitManager inner, DiskFailure disk) : DelegatingCommitManager(inner)
{
    private int _failedWrites;
    private int _failedForcedWrites;

    /// <summary>Gets how many metadata writes have failed.</summary>
    public int FailedWrites => Volatile.Read(ref _failedWrites);

    /// <summary>Gets how many of them FASTER forced because the log's begin address moved (it deletes files after those).</summary>
    public int FailedForcedWrites => Volatile.Read(ref _failedForcedWrites);

    public override void Commit(long beginAddress, long untilAddress, byte[] commitMetadata, long commitNum, bool forceWriteMetadata)
    {
        if (disk.HasFailed)
        {
            Interlocked.Increment(ref _failedWrites);
            if (forceWriteMetadata)
            {
                Interlocked.Increment(ref _failedForcedWrites);
            }

            throw new IOException("Input/output error (the failing disk)");
        }

        Inner.Commit(beginAddress, untilAddress, commitMetadata, commitNum, forceWriteMetadata);
    }
}
