using System;
using System.Buffers;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Durability;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Upserts and deletes of one key: admission, the write barrier, the key's stripe, the journal's turn, a session, then
/// FASTER; the journal's turn ends whether or not the write reached FASTER. Each write then lets the compactor check
/// whether the log has grown past its threshold. Under a disk budget an upsert first waits for room in the log
/// (<see cref="Compaction.LogCompactor.WaitForRoomAsync"/>), before the write barrier, which back-pressure closes; a delete never
/// waits, since it is how room is made.
/// </summary>
/// <remarks>
/// Each is one async method from admission to completion: a nested async helper would add a state-machine allocation
/// to every write that waits (for a stripe, a session, the disk or a commit).
/// </remarks>
internal sealed partial class FasterRecordStore
{
    /// <summary>Writes a key's value, durably as far as the store's durability mode promises once this completes.</summary>
    /// <exception cref="StoreFaultedException">
    /// The store's disk failed before the write was durable; it was not acknowledged, and a reopen does not show it. A
    /// Commit-mode write that was committed to the write-ahead log is acknowledged even if the store faults before it is
    /// applied: a reopen replays it.
    /// </exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, CancellationToken cancellationToken = default)
    {
        EnsureRecordFits(key.Length, value.Length);
        _fault.ThrowIfFaulted();
        using OperationGate.Scope admission = _gate.Enter(this);
        if (!Compactor.HasRoom)
        {
            await Compactor.WaitForRoomAsync(cancellationToken).ConfigureAwait(false);
        }

        int stripe = _keyStripes.StripeOf(key.Span);
        byte[]? sealedValue = null;
        ReadOnlyMemory<byte> stored = value;
        if (_valueChecksums)
        {
            sealedValue = ValueChecksum.Seal(key.Span, value.Span, out int sealedLength);
            stored = sealedValue.AsMemory(0, sealedLength);
        }

        try
        {
            using WriteBarrier.Scope write = await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false);
            KeyStripeLocks.Scope held = await _keyStripes.EnterAsync(stripe, cancellationToken).ConfigureAwait(false);
            WriteTurn turn = await _journal.BeginWriteAsync(held, stripe, key, value, isDelete: false, cancellationToken).ConfigureAwait(false);
            bool applied = false;
            try
            {
                using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(turn.Cancellation).ConfigureAwait(false);
                _fault.ThrowIfFaulted();
                var result = await WaitForIssuedAsync(lease.Session, PinnedRecord.UpsertAsync(lease.Session, key.Span, stored.Span)).ConfigureAwait(false);
                while (result.Status.IsPending)
                {
                    result = await WaitForIssuedAsync(lease.Session, result.CompleteAsync()).ConfigureAwait(false);
                }

                applied = true;
            }
            catch (StoreFaultedException) when (turn.IsLogged)
            {
                // Durable in the write-ahead log before the store faulted: acknowledged, since a reopen replays it. The
                // faulted store shows nothing meanwhile, so its missing apply is never seen.
            }
            finally
            {
                _stripeWrites.Count(stripe);
                _journal.EndWrite(turn, applied, changedRecords: applied);
            }

            Compactor.NoteWrite();
        }
        finally
        {
            if (sealedValue is not null)
            {
                ArrayPool<byte>.Shared.Return(sealedValue);
            }
        }
    }

    /// <summary>
    /// Deletes a key. Returns true exactly when a live record existed, in memory or on disk. A journal that records
    /// writes before applying them records the delete also when the key turns out to be absent: that is known only
    /// once the delete runs.
    /// </summary>
    /// <exception cref="StoreFaultedException">
    /// The store's disk failed before or while the delete ran. In Commit mode a delete committed to the write-ahead log
    /// before the store faulted throws too, as whether the key existed is learned only by applying it, yet a reopen
    /// replays it: the key is then gone, and the exception's message says so.
    /// </exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
    {
        _fault.ThrowIfFaulted();
        using OperationGate.Scope admission = _gate.Enter(this);
        int stripe = _keyStripes.StripeOf(key.Span);
        using WriteBarrier.Scope write = await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false);
        KeyStripeLocks.Scope held = await _keyStripes.EnterAsync(stripe, cancellationToken).ConfigureAwait(false);
        WriteTurn turn = await _journal.BeginWriteAsync(held, stripe, key, default, isDelete: true, cancellationToken).ConfigureAwait(false);
        bool applied = false;
        bool found = false;
        try
        {
            using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(turn.Cancellation).ConfigureAwait(false);
            _fault.ThrowIfFaulted();
            var result = await WaitForIssuedAsync(lease.Session, PinnedRecord.DeleteAsync(lease.Session, key.Span)).ConfigureAwait(false);
            while (result.Status.IsPending)
            {
                result = await WaitForIssuedAsync(lease.Session, result.CompleteAsync()).ConfigureAwait(false);
            }

            applied = true;
            found = result.Status.Found;
        }
        catch (StoreFaultedException e) when (turn.IsLogged)
        {
            // Durable in the write-ahead log, but whether the key existed is learned only by applying it.
            throw StoreFaultedException.ForCommittedDelete(e);
        }
        finally
        {
            _stripeWrites.Count(stripe);
            _journal.EndWrite(turn, applied, changedRecords: found);
        }

        if (found)
        {
            Compactor.NoteRecordDeleted();
        }

        Compactor.NoteWrite();
        return found;
    }
}
