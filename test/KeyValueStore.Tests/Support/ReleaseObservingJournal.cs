using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Durability;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// A store's own journal, passed through unchanged, that calls <paramref name="beforeRelease"/> each time compaction asks
/// it to release emptied segment files, before the journal does (a checkpoint in the durable modes).
/// </summary>
internal sealed class ReleaseObservingJournal(IWriteJournal inner, Action beforeRelease) : PassThroughJournal(inner)
{
    public override Task ReleaseCompactedLogAsync(CancellationToken cancellationToken)
    {
        beforeRelease();
        return Inner.ReleaseCompactedLogAsync(cancellationToken);
    }
}
