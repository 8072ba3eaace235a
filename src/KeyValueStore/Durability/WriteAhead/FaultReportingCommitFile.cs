using System;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// The write-ahead log's commit file as FASTER sees it: passes every call through, and turns a failed metadata write
/// into the store's fault instead of an exception thrown back into FASTER.
/// </summary>
/// <remarks>
/// FASTER 2.6.5 writes commit metadata from its commit worker, after the commit record is on disk and the log's
/// committed address has moved, and swallows what the write throws: that commit's completion is then never signalled,
/// so whoever waits for it (the group commit holding the commit turn, and every writer behind it) waits for good.
/// Returning normally lets the commit complete, which is true in the fast-commit mode the log runs in: the commit
/// record on disk is the commit, and the metadata only tells recovery where to start scanning for such records (a
/// failed write leaves the previous slot, an earlier start). The fault then fences off every later write. It is
/// reported before FASTER goes on to delete segment files below a moved begin address, which the log's
/// <see cref="FaultReportingDevice"/> refuses once the store has faulted: the previous slot's start stays readable.
/// </remarks>
internal sealed class FaultReportingCommitFile(ILogCommitManager inner, StoreFault fault) : DelegatingCommitManager(inner)
{
    public override void Commit(long beginAddress, long untilAddress, byte[] commitMetadata, long commitNum, bool forceWriteMetadata)
    {
        try
        {
            Inner.Commit(beginAddress, untilAddress, commitMetadata, commitNum, forceWriteMetadata);
        }
        catch (Exception e)
        {
            fault.Report("write-ahead log's commit file", e);
        }
    }
}
