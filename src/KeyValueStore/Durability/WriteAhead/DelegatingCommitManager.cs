using System.Collections.Generic;
using FASTER.core;

namespace KeyValueStore.Durability;

/// <summary>
/// Passes every call of FASTER's <see cref="ILogCommitManager"/> to the one under it; a wrapper overrides what it
/// watches (<see cref="Commit"/>), as <c>DelegatingDevice</c> does for devices.
/// </summary>
internal abstract class DelegatingCommitManager(ILogCommitManager inner) : ILogCommitManager
{
    protected ILogCommitManager Inner { get; } = inner;

    public virtual void Commit(long beginAddress, long untilAddress, byte[] commitMetadata, long commitNum, bool forceWriteMetadata) =>
        Inner.Commit(beginAddress, untilAddress, commitMetadata, commitNum, forceWriteMetadata);

    public byte[] GetCommitMetadata(long commitNum) => Inner.GetCommitMetadata(commitNum);

    public IEnumerable<long> ListCommits() => Inner.ListCommits();

    public void RemoveCommit(long commitNum) => Inner.RemoveCommit(commitNum);

    public void RemoveAllCommits() => Inner.RemoveAllCommits();

    public void OnRecovery(long commitNum) => Inner.OnRecovery(commitNum);

    public void Dispose() => Inner.Dispose();
}
