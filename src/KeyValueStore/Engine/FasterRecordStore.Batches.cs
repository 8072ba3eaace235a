using System;
using System.Buffers;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;
using KeyValueStore.Durability;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>Atomic multi-key operations: batches of writes, read-modify-write of several keys, consistent multi-key reads.</summary>
/// <remarks>
/// Isolation comes from <see cref="KeyStripeLocks"/>: a batch holds the stripes of all its keys (taken in ascending
/// order, so batches cannot deadlock) while it writes, and a multi-key read holds the same stripes while it reads, so
/// it sees every batch whole or not at all. A single-key read takes no stripe and sees each key before or after.
/// <para>
/// Atomicity across crashes: without a log of writes, from <see cref="WriteBarrier"/>: a batch is one admission, and a
/// checkpoint (the only thing recovery restores) waits for admitted writes to finish, so a checkpoint holds all of a
/// batch or none of it. A journal that logs writes (<see cref="WriteAheadJournal"/>) logs a batch as one transaction,
/// replayed whole or not at all over any checkpoint that holds part of it; since such a journal applies writes after
/// giving their stripes back, a multi-key read first waits for the writes it admitted (<see cref="IWriteJournal.WaitUntilAppliedAsync"/>).
/// </para>
/// Once a batch starts writing it runs to the end; cancellation applies only while it waits to start.
/// </remarks>
internal sealed partial class FasterRecordStore
{
    /// <summary>Applies <paramref name="writes"/> in order as one atomic batch (the last write of a key wins).</summary>
    /// <exception cref="BatchTooLargeException">More than <see cref="BatchTooLargeException.MaxWrites"/> writes or <see cref="BatchTooLargeException.MaxEncodedBytes"/> bytes; nothing is written.</exception>
    /// <exception cref="RecordTooLargeException">A write does not fit in a page; nothing is written.</exception>
    public async ValueTask ApplyBatchAsync(IReadOnlyList<BatchWrite> writes, CancellationToken cancellationToken = default)
    {
        ValidateBatch(writes);
        _fault.ThrowIfFaulted();
        using OperationGate.Scope admission = _gate.Enter(this);
        if (writes.Count == 0)
        {
            return;
        }

        if (!Compactor.HasRoom && AnyOfKind(writes, delete: false))
        {
            await Compactor.WaitForRoomAsync(cancellationToken).ConfigureAwait(false);
        }

        int[] stripes = _keyStripes.StripesOf(writes, write => write.Key);
        using WriteBarrier.Scope write = await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false);
        KeyStripeLocks.ManyScope held = await _keyStripes.EnterManyAsync(stripes, cancellationToken).ConfigureAwait(false);
        WriteTurn turn = await _journal.BeginBatchAsync(held, stripes, writes, cancellationToken).ConfigureAwait(false);
        await ApplyInTurnAsync(turn, stripes, writes).ConfigureAwait(false);
    }

    /// <summary>
    /// Reads <paramref name="keys"/> and applies the writes <paramref name="update"/> computes from their values (null
    /// for an absent key) as one atomic step: no other write of those keys comes between the read and the writes.
    /// </summary>
    /// <remarks>
    /// <paramref name="update"/> runs while the keys' stripes and a write admission are held: it must be quick (a
    /// checkpoint waits for it) and must not call this store (a write of one of its keys would wait for itself).
    /// </remarks>
    /// <exception cref="ArgumentException">A computed write is for a key not in <paramref name="keys"/>; nothing is written.</exception>
    public async ValueTask UpdateManyAsync(
        IReadOnlyList<ReadOnlyMemory<byte>> keys,
        Func<IReadOnlyList<byte[]?>, IReadOnlyList<BatchWrite>> update,
        CancellationToken cancellationToken = default)
    {
        _fault.ThrowIfFaulted();
        using OperationGate.Scope admission = _gate.Enter(this);

        // What the update writes is known only inside the barrier, where waiting for room could not end: treated as an upsert.
        if (!Compactor.HasRoom)
        {
            await Compactor.WaitForRoomAsync(cancellationToken).ConfigureAwait(false);
        }

        int[] stripes = _keyStripes.StripesOf(keys, key => key);
        using WriteBarrier.Scope write = await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false);
        KeyStripeLocks.ManyScope held = await _keyStripes.EnterManyAsync(stripes, cancellationToken).ConfigureAwait(false);
        IReadOnlyList<BatchWrite> writes;
        try
        {
            await _journal.WaitUntilAppliedAsync(stripes).ConfigureAwait(false);
            byte[]?[] current = await ReadCopiesAsync(keys, cancellationToken).ConfigureAwait(false);
            writes = update(current);
            ValidateBatch(writes);
            EnsureOnlyReadKeysAreWritten(keys, writes);
            _fault.ThrowIfFaulted();
        }
        catch
        {
            held.Dispose();
            throw;
        }

        if (writes.Count == 0)
        {
            held.Dispose();
            return;
        }

        WriteTurn turn = await _journal.BeginBatchAsync(held, stripes, writes, cancellationToken).ConfigureAwait(false);
        await ApplyInTurnAsync(turn, stripes, writes).ConfigureAwait(false);
    }

    /// <summary>Reads several keys as of one moment, each decoded by <paramref name="decoder"/>: no batch is seen in part.</summary>
    public async ValueTask<(bool Found, T Value)[]> ReadManyAsync<T>(IReadOnlyList<ReadOnlyMemory<byte>> keys, IValueDecoder<T> decoder, CancellationToken cancellationToken = default)
    {
        (bool Found, PooledBuffer Value)[] read = await ReadManyAsync(keys, cancellationToken).ConfigureAwait(false);
        var decoded = new (bool Found, T Value)[read.Length];
        int next = 0;
        try
        {
            for (; next < read.Length; next++)
            {
                decoded[next] = Decode(read[next], decoder);
            }
        }
        catch
        {
            // Decode gave back the buffer it failed on; the ones after it were never handed to it.
            for (next++; next < read.Length; next++)
            {
                read[next].Value.Return();
            }

            throw;
        }

        return decoded;
    }

    /// <summary>Reads several keys as of one moment: no batch is seen in part. Each found value is a pooled buffer to return.</summary>
    public async ValueTask<(bool Found, PooledBuffer Value)[]> ReadManyAsync(IReadOnlyList<ReadOnlyMemory<byte>> keys, CancellationToken cancellationToken = default)
    {
        _fault.ThrowIfFaulted();
        using OperationGate.Scope admission = _gate.Enter(this);
        int[] stripes = _keyStripes.StripesOf(keys, key => key);
        using KeyStripeLocks.ManyScope held = await _keyStripes.EnterManyAsync(stripes, cancellationToken).ConfigureAwait(false);
        await _journal.WaitUntilAppliedAsync(stripes).ConfigureAwait(false);

        using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false);
        var results = new (bool Found, PooledBuffer Value)[keys.Count];
        try
        {
            for (int i = 0; i < keys.Count; i++)
            {
                results[i] = await ReadInSessionAsync(lease.Session, keys[i]).ConfigureAwait(false);
            }
        }
        catch
        {
            foreach ((bool found, PooledBuffer value) in results)
            {
                if (found)
                {
                    value.Return();
                }
            }

            throw;
        }

        return results;
    }

    /// <summary>Reads <paramref name="keys"/> into arrays of their own (null when absent), for an update to compute from.</summary>
    private async ValueTask<byte[]?[]> ReadCopiesAsync(IReadOnlyList<ReadOnlyMemory<byte>> keys, CancellationToken cancellationToken)
    {
        var current = new byte[]?[keys.Count];
        using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false);
        for (int i = 0; i < keys.Count; i++)
        {
            (bool found, PooledBuffer value) = await ReadInSessionAsync(lease.Session, keys[i]).ConfigureAwait(false);
            current[i] = found ? value.Span.ToArray() : null;
            value.Return();
        }

        return current;
    }

    /// <summary>Applies a batch, whose keys lie in <paramref name="stripes"/>, in the turn its journal gave it, and ends the turn.</summary>
    private async ValueTask ApplyInTurnAsync(WriteTurn turn, int[] stripes, IReadOnlyList<BatchWrite> writes)
    {
        bool applied = false;
        try
        {
            using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(turn.Cancellation).ConfigureAwait(false);
            _fault.ThrowIfFaulted();
            for (int i = 0; i < writes.Count; i++)
            {
                await ApplyInSessionAsync(lease.Session, writes[i]).ConfigureAwait(false);
            }

            applied = true;
        }
        catch (StoreFaultedException) when (turn.IsLogged)
        {
            // Durable in the write-ahead log before the store faulted: acknowledged, since a reopen replays it whole.
        }
        finally
        {
            _stripeWrites.Count(stripes);
            _journal.EndWrite(turn, applied, changedRecords: applied);
        }

        if (applied && AnyOfKind(writes, delete: true))
        {
            Compactor.NoteRecordDeleted();
        }

        Compactor.NoteWrite();
    }

    /// <summary>Whether any write of <paramref name="writes"/> is a delete (<paramref name="delete"/> true) or an upsert (false).</summary>
    private static bool AnyOfKind(IReadOnlyList<BatchWrite> writes, bool delete)
    {
        for (int i = 0; i < writes.Count; i++)
        {
            if (writes[i].IsDelete == delete)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>An update may write only keys it read: those are the ones whose stripes it holds and whose values it saw.</summary>
    private static void EnsureOnlyReadKeysAreWritten(IReadOnlyList<ReadOnlyMemory<byte>> keys, IReadOnlyList<BatchWrite> writes)
    {
        var read = new HashSet<ReadOnlyMemory<byte>>(keys, KeyBytesComparer.Instance);
        for (int i = 0; i < writes.Count; i++)
        {
            if (!read.Contains(writes[i].Key))
            {
                throw new ArgumentException(
                    $"The update wrote a key ({Convert.ToHexString(writes[i].Key.Span)}) that it had not read. Pass every key the update may write in the keys it reads.",
                    "update");
            }
        }
    }

    /// <summary>Checks a whole batch before any of it is written, so that a bad batch writes nothing.</summary>
    private void ValidateBatch(IReadOnlyList<BatchWrite> writes)
    {
        if (writes.Count > BatchTooLargeException.MaxWrites)
        {
            throw new BatchTooLargeException(writes.Count);
        }

        long encodedBytes = WalTransaction.SizeOf(writes);
        if (encodedBytes > BatchTooLargeException.MaxEncodedBytes)
        {
            throw new BatchTooLargeException(writes.Count, encodedBytes);
        }

        for (int i = 0; i < writes.Count; i++)
        {
            if (!writes[i].IsDelete)
            {
                EnsureRecordFits(writes[i].Key.Length, writes[i].Value.Length);
            }
        }
    }

    private async ValueTask ApplyInSessionAsync(StoreSession session, BatchWrite write)
    {
        if (write.IsDelete)
        {
            var deleted = await WaitForIssuedAsync(session, PinnedRecord.DeleteAsync(session, write.Key.Span)).ConfigureAwait(false);
            while (deleted.Status.IsPending)
            {
                deleted = await WaitForIssuedAsync(session, deleted.CompleteAsync()).ConfigureAwait(false);
            }

            return;
        }

        byte[]? sealedValue = null;
        ReadOnlyMemory<byte> stored = write.Value;
        if (_valueChecksums)
        {
            sealedValue = ValueChecksum.Seal(write.Key.Span, write.Value.Span, out int sealedLength);
            stored = sealedValue.AsMemory(0, sealedLength);
        }

        try
        {
            var upserted = await WaitForIssuedAsync(session, PinnedRecord.UpsertAsync(session, write.Key.Span, stored.Span)).ConfigureAwait(false);
            while (upserted.Status.IsPending)
            {
                upserted = await WaitForIssuedAsync(session, upserted.CompleteAsync()).ConfigureAwait(false);
            }
        }
        finally
        {
            if (sealedValue is not null)
            {
                ArrayPool<byte>.Shared.Return(sealedValue);
            }
        }
    }

    /// <summary>Compares keys by their bytes.</summary>
    private sealed class KeyBytesComparer : IEqualityComparer<ReadOnlyMemory<byte>>
    {
        public static readonly KeyBytesComparer Instance = new();

        public bool Equals(ReadOnlyMemory<byte> x, ReadOnlyMemory<byte> y) => x.Span.SequenceEqual(y.Span);

        public int GetHashCode(ReadOnlyMemory<byte> key)
        {
            var hash = default(HashCode);
            hash.AddBytes(key.Span);
            return hash.ToHashCode();
        }
    }
}
