using System;
using System.IO;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// FASTER's checkpoint manager, which first makes the sector checksums of everything the checkpoint holds durable
/// (<see cref="SectorChecksums.Persist"/>), then writes the checkpoint's metadata, both on a thread of their own
/// (<see cref="CheckpointCommits"/>, which says why).
/// </summary>
/// <remarks>
/// FASTER calls <see cref="CommitLogCheckpoint"/> once the log is flushed up to the checkpoint's tail, and a checkpoint
/// exists for recovery from the moment its metadata is written. Persisting here, in between, means no recoverable
/// checkpoint ever lacks the checksums of its sectors. When they cannot be written the metadata is not written either:
/// the store faults, its checkpoint fails with <see cref="StoreFaultedException"/>, and the previous one stays the
/// one recovery uses. An index checkpoint's metadata is written the same way (<see cref="CommitIndexCheckpoint"/>).
/// </remarks>
internal sealed class ChecksumPersistingCheckpointManager(
    INamedDeviceFactory deviceFactory,
    ICheckpointNamingScheme namingScheme,
    SectorChecksums checksums,
    CheckpointCommits commits,
    StoreFault fault)
    : DeviceLogCommitCheckpointManager(deviceFactory, namingScheme, removeOutdated: true), ICheckpointManager
{
    public override void CommitLogCheckpoint(Guid logToken, byte[] commitMetadata) =>
        commits.Start(() => CommitLogCheckpointDurably(logToken, commitMetadata));

    /// <summary>
    /// FASTER's own index commit is not virtual; this class implements the interface again so that FASTER's call comes
    /// here and writes the index checkpoint's metadata on a commit thread too.
    /// </summary>
    public new void CommitIndexCheckpoint(Guid indexToken, byte[] commitMetadata) =>
        commits.Start(() => base.CommitIndexCheckpoint(indexToken, commitMetadata));

    private void CommitLogCheckpointDurably(Guid logToken, byte[] commitMetadata)
    {
        try
        {
            checksums.Persist();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            fault.Report("sector checksum files", e);
            return;
        }

        base.CommitLogCheckpoint(logToken, commitMetadata);
    }
}
