using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// What a durability mode does around the engine's writes. The engine calls it at fixed points and never asks which
/// mode it runs in: <see cref="NoJournal"/> (<see cref="DurabilityMode.None"/>), <see cref="CheckpointJournal"/>
/// (<see cref="DurabilityMode.Checkpoint"/>) and <see cref="WriteAheadJournal"/> (<see cref="DurabilityMode.Commit"/>).
/// </summary>
/// <remarks>
/// The fixed points, in the order a store meets them:
/// <list type="number">
/// <item><see cref="RecoverAsync"/> when the store opens, before any caller sees it, then <see cref="Start"/>.</item>
/// <item>For every write, with its key stripes held: <see cref="BeginWriteAsync"/> or <see cref="BeginBatchAsync"/>
/// before it is applied, and <see cref="EndWrite"/> after, also when applying failed.</item>
/// <item><see cref="WaitUntilAppliedAsync"/> before a read that must see whole batches.</item>
/// <item><see cref="CheckpointAsync"/> on demand; <see cref="RunBetweenCheckpointsAsync{T}"/> around each slice a
/// compaction copies, and <see cref="ReleaseCompactedLogAsync"/> after each compaction.</item>
/// <item><see cref="CloseAsync"/> once the store has drained, then <see cref="IAsyncDisposable.DisposeAsync"/>.</item>
/// </list>
/// A journal takes ownership of the stripes passed to it: it gives them back in <see cref="EndWrite"/>, or earlier
/// when its writes need not hold them while they are applied, and also when it throws.
/// </remarks>
internal interface IWriteJournal : IAsyncDisposable
{
    /// <summary>Gets the number of times the journal made writes durable (checkpoints and write-ahead-log commits); null when it never does.</summary>
    long? DurableFlushes { get; }

    /// <summary>Gets the journal's checkpoints under way and started; null when it takes none.</summary>
    BackgroundWork? Checkpoints { get; }

    /// <summary>
    /// Brings the recovered store up to everything the journal promised, through <paramref name="apply"/> (which writes a
    /// transaction the way a live batch is written). Runs once, before <see cref="Start"/> and before any caller sees the store.
    /// </summary>
    Task RecoverAsync(Func<IReadOnlyList<BatchWrite>, ValueTask> apply);

    /// <summary>Starts the journal's background work (periodic checkpoints, group commits).</summary>
    void Start();

    /// <summary>Admits one upsert or delete, whose key stripe <paramref name="held"/> is, to be applied.</summary>
    /// <param name="held">The write's stripe; the journal owns it from here.</param>
    /// <param name="stripe">The number of that stripe.</param>
    /// <param name="key">The key.</param>
    /// <param name="value">The value, as the caller gave it (empty for a delete).</param>
    /// <param name="isDelete">Whether the write is a delete.</param>
    /// <param name="cancellationToken">Cancels the write while nothing of it is recorded.</param>
    /// <returns>The turn to apply the write in; end it with <see cref="EndWrite"/>.</returns>
    ValueTask<WriteTurn> BeginWriteAsync(KeyStripeLocks.Scope held, int stripe, ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, bool isDelete, CancellationToken cancellationToken);

    /// <summary>Admits a batch of writes, whose sorted <paramref name="stripes"/> <paramref name="held"/> are, to be applied as one.</summary>
    ValueTask<WriteTurn> BeginBatchAsync(KeyStripeLocks.ManyScope held, int[] stripes, IReadOnlyList<BatchWrite> writes, CancellationToken cancellationToken);

    /// <summary>Ends a write's turn, whether or not it was applied.</summary>
    /// <param name="turn">The turn <see cref="BeginWriteAsync"/> or <see cref="BeginBatchAsync"/> returned.</param>
    /// <param name="applied">Whether the write reached FASTER.</param>
    /// <param name="changedRecords">Whether it changed a record (false for a delete that found nothing).</param>
    void EndWrite(in WriteTurn turn, bool applied, bool changedRecords);

    /// <summary>
    /// Completes once every write admitted on <paramref name="stripes"/> has been applied. The caller holds those
    /// stripes, so that a multi-key read then sees each batch whole or not at all.
    /// </summary>
    ValueTask WaitUntilAppliedAsync(int[] stripes);

    /// <summary>Makes everything written before the call durable.</summary>
    /// <exception cref="StoreNotDurableException">The store is not durable.</exception>
    Task CheckpointAsync(CancellationToken cancellationToken);

    /// <summary>
    /// Runs <paramref name="work"/> (one slice of a compaction: its copies, then the begin address moved past them) with
    /// no checkpoint in progress. A copy appended while a checkpoint runs lands in the checkpoint's next version below
    /// its tail, which FASTER's recovery rewrites in place (<see cref="Checkpointer"/> says why that must not happen);
    /// and a checkpoint that recorded the new begin address without every copy would lose the records they replace.
    /// </summary>
    Task<T> RunBetweenCheckpointsAsync<T>(Func<Task<T>> work);

    /// <summary>
    /// Lets the segment files below the begin address go, once nothing recovery would read needs them: at once when
    /// nothing is recovered, or after a checkpoint has recorded the new begin address with the copies. Deleting them
    /// first would delete records the latest checkpoint still needs.
    /// </summary>
    Task ReleaseCompactedLogAsync(CancellationToken cancellationToken);

    /// <summary>
    /// Gets whether a compaction pass should ask for <see cref="ReleaseCompactedLogAsync"/> as soon as it has emptied a
    /// whole segment file, rather than once it has emptied several (an eighth of the threshold, a sixteenth near the
    /// back-pressure bound).
    /// True where a release on the way costs the writers less than the disk it gives back (docs/benchmarks.md, "Commit
    /// mode gives emptied segments back at once").
    /// </summary>
    bool ReleasesEachEmptiedSegment { get; }

    /// <summary>Makes every write durable as the store closes. Call once every operation has finished; the files stay open until disposal.</summary>
    Task CloseAsync();
}
