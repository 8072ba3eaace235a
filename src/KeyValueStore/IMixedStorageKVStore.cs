using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore;

/// <summary>
/// A key-value store of typed keys and values, safe for any number of concurrent callers. Keys and values are
/// serialized with MessagePack; a key is found by its serialized bytes, so two keys are the same key exactly when they
/// serialize to the same bytes.
/// </summary>
/// <remarks>
/// <para>
/// <b>Cancellation.</b> A token is honoured while an operation waits to start: for a session, for its key's lock, or
/// while a checkpoint or compaction holds writes back. Cancelled there, the operation did nothing. Once a write has
/// been issued it runs to the end. In <see cref="DurabilityMode.Commit"/> mode a write is issued when it is appended to
/// the write-ahead log; it is then committed and applied whatever the token says, since recovery would replay it.
/// Readers never see a Commit-mode write before it is durable.
/// </para>
/// <para>
/// <b>Disk failures.</b> When the disk fails under the store (full, or an I/O error), the operation that met the
/// failure and every operation after it, reads too, throw <see cref="StoreFaultedException"/>. Dispose the store and
/// open it again once the disk is fixed: every acknowledged write is recovered. A write that was in flight when the
/// disk failed may or may not be recovered; a write started after the failure never is.
/// </para>
/// <para>
/// <b>Errors.</b> Expected outcomes (found, not found) are values. Misuse and damage throw exceptions derived from
/// <see cref="KeyValueStoreException"/>, plus <see cref="ArgumentException"/>s, <see cref="ObjectDisposedException"/>
/// and <see cref="OperationCanceledException"/>. A write that throws before it was issued wrote nothing.
/// </para>
/// <para>
/// <b>ValueTasks.</b> Await each returned <see cref="ValueTask"/> once, or call <see cref="ValueTask.AsTask"/> once to
/// share it. An operation that had to wait completes through a pooled state machine that the next operation reuses:
/// awaiting its task a second time throws <see cref="InvalidOperationException"/>; it never returns another
/// operation's result.
/// </para>
/// </remarks>
/// <typeparam name="TKey">The key type; MessagePack must be able to serialize it. Prefer immutable types.</typeparam>
/// <typeparam name="TValue">The value type; MessagePack must be able to serialize it.</typeparam>
public interface IMixedStorageKVStore<TKey, TValue> : IDisposable, IAsyncDisposable
{
    /// <summary>Inserts or replaces the value of <paramref name="key"/>.</summary>
    /// <param name="key">The record's key; not null.</param>
    /// <param name="value">The record's new value.</param>
    /// <param name="cancellationToken">Cancels the wait to start (see remarks of the type).</param>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is null.</exception>
    /// <exception cref="SerializationFailedException">MessagePack cannot serialize the key or the value; nothing is written.</exception>
    /// <exception cref="RecordTooLargeException">The serialized key and value do not fit in one log page; nothing is written.</exception>
    /// <exception cref="LogDiskBudgetExceededException">The live data fills <see cref="MixedStorageKVStoreOptions.LogDiskBudgetBytes"/>; nothing is written.</exception>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    ValueTask UpsertAsync(TKey key, TValue value, CancellationToken cancellationToken = default);

    /// <summary>Reads the value of <paramref name="key"/>, from memory or from disk.</summary>
    /// <returns>The status and, when found, the value; deconstructs into <c>(status, value)</c>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is null.</exception>
    /// <exception cref="ValueCorruptedException">The stored value cannot be decoded.</exception>
    /// <exception cref="ValueChecksumMismatchException">Value checksums are on and the stored value fails its checksum.</exception>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    ValueTask<ReadResult<TValue>> ReadAsync(TKey key, CancellationToken cancellationToken = default);

    /// <summary>Deletes <paramref name="key"/>.</summary>
    /// <returns><see cref="KeyStatus.Found"/> exactly when a live record existed (in memory or on disk) and is now deleted.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    ValueTask<KeyStatus> DeleteAsync(TKey key, CancellationToken cancellationToken = default);

    /// <summary>
    /// Applies every write of <paramref name="batch"/> as one atomic step: no reader of several keys sees part of it, and
    /// after a crash a durable store holds all of it or none of it. An empty batch does nothing.
    /// </summary>
    /// <exception cref="SerializationFailedException">A key or value cannot be serialized; nothing is written.</exception>
    /// <exception cref="RecordTooLargeException">A write does not fit in one log page; nothing is written.</exception>
    /// <exception cref="LogDiskBudgetExceededException">The batch upserts, and the live data fills <see cref="MixedStorageKVStoreOptions.LogDiskBudgetBytes"/>; nothing is written (a batch of deletes only is always accepted).</exception>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    ValueTask ApplyBatchAsync(WriteBatch<TKey, TValue> batch, CancellationToken cancellationToken = default);

    /// <summary>Reads several keys as of one moment: no batch is seen in part.</summary>
    /// <returns>One result per key, in the order of <paramref name="keys"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="keys"/> or one of them is null.</exception>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    ValueTask<IReadOnlyList<ReadResult<TValue>>> ReadManyAsync(IReadOnlyList<TKey> keys, CancellationToken cancellationToken = default);

    /// <summary>
    /// Reads <paramref name="keys"/> and applies the writes <paramref name="update"/> adds to the batch it is given, as one
    /// atomic step: no other write of those keys comes between the read and the writes (a transfer between accounts).
    /// </summary>
    /// <param name="keys">Every key the update reads or may write.</param>
    /// <param name="update">
    /// Receives the current results, in the order of <paramref name="keys"/>, and an empty batch to fill. It runs while
    /// the keys are locked: keep it quick and do not call the store from it.
    /// </param>
    /// <param name="cancellationToken">Cancels the wait to start (see the type's remarks).</param>
    /// <exception cref="ArgumentException">The update wrote a key not in <paramref name="keys"/>; nothing is written.</exception>
    /// <exception cref="LogDiskBudgetExceededException">The live data fills <see cref="MixedStorageKVStoreOptions.LogDiskBudgetBytes"/>; the update did not run.</exception>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    ValueTask UpdateManyAsync(IReadOnlyList<TKey> keys, Action<IReadOnlyList<ReadResult<TValue>>, WriteBatch<TKey, TValue>> update, CancellationToken cancellationToken = default);

    /// <summary>Compacts the read-only part of the log now: live records are copied forward and emptied segment files are deleted.</summary>
    /// <param name="cancellationToken">
    /// Stops the compaction before its next slice of a few megabytes; what it compacted so far stays compacted, and its
    /// files are deleted by the next compaction or checkpoint.
    /// </param>
    /// <exception cref="StoreFaultedException">The store's disk failed, before or during the compaction.</exception>
    /// <exception cref="CompactionFailedException">The storage engine failed while it compacted; nothing was lost and the store stays usable.</exception>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    ValueTask<CompactionSummary> CompactAsync(CancellationToken cancellationToken = default);

    /// <summary>Takes a checkpoint now; completes once everything written before the call is on disk.</summary>
    /// <exception cref="StoreNotDurableException">The store's durability is <see cref="DurabilityMode.None"/>.</exception>
    /// <exception cref="StoreFaultedException">The store's disk failed, now or before, or the storage engine failed inside the checkpoint: the store refuses every operation from then on, and a reopen recovers what was promised before the failure.</exception>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    ValueTask CheckpointAsync(CancellationToken cancellationToken = default);
}
