using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// <see cref="DurabilityMode.None"/>: writes are applied while they hold their stripes and recorded nowhere else; the
/// store's files are scratch space and nothing survives a restart.
/// </summary>
internal sealed class NoJournal(FasterKV<SpanByte, SpanByte> store) : IWriteJournal
{
    /// <inheritdoc/>
    public long? DurableFlushes => null;

    /// <inheritdoc/>
    public BackgroundWork? Checkpoints => null;

    /// <inheritdoc/>
    public Task RecoverAsync(Func<IReadOnlyList<BatchWrite>, ValueTask> apply) => Task.CompletedTask;

    /// <inheritdoc/>
    public void Start()
    {
    }

    /// <inheritdoc/>
    public ValueTask<WriteTurn> BeginWriteAsync(KeyStripeLocks.Scope held, int stripe, ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, bool isDelete, CancellationToken cancellationToken) =>
        new(WriteTurn.HoldingStripe(held, cancellationToken));

    /// <inheritdoc/>
    public ValueTask<WriteTurn> BeginBatchAsync(KeyStripeLocks.ManyScope held, int[] stripes, IReadOnlyList<BatchWrite> writes, CancellationToken cancellationToken) =>
        new(WriteTurn.HoldingStripes(held, cancellationToken));

    /// <inheritdoc/>
    public void EndWrite(in WriteTurn turn, bool applied, bool changedRecords) => turn.ReleaseStripes();

    /// <inheritdoc/>
    public ValueTask WaitUntilAppliedAsync(int[] stripes) => ValueTask.CompletedTask;

    /// <inheritdoc/>
    public Task CheckpointAsync(CancellationToken cancellationToken) => throw new StoreNotDurableException();

    /// <inheritdoc/>
    /// <remarks>
    /// There are no checkpoints to keep out of; and since nothing is recovered, the segment files a slice emptied go as
    /// soon as it ends, not with its whole pass: the disk follows the begin address while a long pass runs.
    /// </remarks>
    public async Task<T> RunBetweenCheckpointsAsync<T>(Func<Task<T>> work)
    {
        T result = await work().ConfigureAwait(false);
        store.Log.Truncate();
        return result;
    }

    /// <inheritdoc/>
    /// <remarks>Nothing is recovered, so the emptied segment files go at once (each slice has let its own go already).</remarks>
    public Task ReleaseCompactedLogAsync(CancellationToken cancellationToken)
    {
        store.Log.Truncate();
        return Task.CompletedTask;
    }

    /// <inheritdoc/>
    /// <remarks>No need: each slice lets its own segments go as it ends (<see cref="RunBetweenCheckpointsAsync{T}"/>).</remarks>
    public bool ReleasesEachEmptiedSegment => false;

    /// <inheritdoc/>
    public Task CloseAsync() => Task.CompletedTask;

    /// <inheritdoc/>
    public ValueTask DisposeAsync() => ValueTask.CompletedTask;
}
