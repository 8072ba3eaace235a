using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Durability;
using KeyValueStore.Storage;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// A store's own journal, passed through unchanged, that calls <paramref name="beforeRelease"/> each time compaction asks
/// it to release emptied segment files, before the journal does (a checkpoint in the durable modes).
/// </summary>
internal sealed class ReleaseObservingJournal(IWriteJournal inner, Action beforeRelease) : IWriteJournal
{
    public long? DurableFlushes => inner.DurableFlushes;

    public BackgroundWork? Checkpoints => inner.Checkpoints;

    public Task ReleaseCompactedLogAsync(CancellationToken cancellationToken)
    {
        beforeRelease();
        return inner.ReleaseCompactedLogAsync(cancellationToken);
    }

    public bool ReleasesEachEmptiedSegment => inner.ReleasesEachEmptiedSegment;

    public Task RecoverAsync(Func<IReadOnlyList<BatchWrite>, ValueTask> apply) => inner.RecoverAsync(apply);

    public void Start() => inner.Start();

    public ValueTask<WriteTurn> BeginWriteAsync(KeyStripeLocks.Scope held, int stripe, ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, bool isDelete, CancellationToken cancellationToken) =>
        inner.BeginWriteAsync(held, stripe, key, value, isDelete, cancellationToken);

    public ValueTask<WriteTurn> BeginBatchAsync(KeyStripeLocks.ManyScope held, int[] stripes, IReadOnlyList<BatchWrite> writes, CancellationToken cancellationToken) =>
        inner.BeginBatchAsync(held, stripes, writes, cancellationToken);

    public void EndWrite(in WriteTurn turn, bool applied, bool changedRecords) => inner.EndWrite(turn, applied, changedRecords);

    public ValueTask WaitUntilAppliedAsync(int[] stripes) => inner.WaitUntilAppliedAsync(stripes);

    public Task CheckpointAsync(CancellationToken cancellationToken) => inner.CheckpointAsync(cancellationToken);

    public Task<T> RunBetweenCheckpointsAsync<T>(Func<Task<T>> work) => inner.RunBetweenCheckpointsAsync(work);

    public Task CloseAsync() => inner.CloseAsync();

    public ValueTask DisposeAsync() => inner.DisposeAsync();
}
