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
/// A store's own journal with every member passed through unchanged: a test journal derives from it and overrides only
/// the member it observes or alters.
/// </summary>
internal abstract class PassThroughJournal(IWriteJournal inner) : IWriteJournal
{
    /// <summary>Gets the store's own journal.</summary>
    protected IWriteJournal Inner => inner;

    public virtual long? DurableFlushes => inner.DurableFlushes;

    public virtual BackgroundWork? Checkpoints => inner.Checkpoints;

    public virtual bool ReleasesEachEmptiedSegment => inner.ReleasesEachEmptiedSegment;

    public virtual Task ReleaseCompactedLogAsync(CancellationToken cancellationToken) => inner.ReleaseCompactedLogAsync(cancellationToken);

    public virtual Task RecoverAsync(Func<IReadOnlyList<BatchWrite>, ValueTask> apply) => inner.RecoverAsync(apply);

    public virtual void Start() => inner.Start();

    public virtual ValueTask<WriteTurn> BeginWriteAsync(KeyStripeLocks.Scope held, int stripe, ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, bool isDelete, CancellationToken cancellationToken) =>
        inner.BeginWriteAsync(held, stripe, key, value, isDelete, cancellationToken);

    public virtual ValueTask<WriteTurn> BeginBatchAsync(KeyStripeLocks.ManyScope held, int[] stripes, IReadOnlyList<BatchWrite> writes, CancellationToken cancellationToken) =>
        inner.BeginBatchAsync(held, stripes, writes, cancellationToken);

    public virtual void EndWrite(in WriteTurn turn, bool applied, bool changedRecords) => inner.EndWrite(turn, applied, changedRecords);

    public virtual ValueTask WaitUntilAppliedAsync(int[] stripes) => inner.WaitUntilAppliedAsync(stripes);

    public virtual Task CheckpointAsync(CancellationToken cancellationToken) => inner.CheckpointAsync(cancellationToken);

    public virtual Task<T> RunBetweenCheckpointsAsync<T>(Func<Task<T>> work) => inner.RunBetweenCheckpointsAsync(work);

    public virtual Task CloseAsync() => inner.CloseAsync();

    public virtual ValueTask DisposeAsync() => inner.DisposeAsync();
}
