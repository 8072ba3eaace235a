using System;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;
using KeyValueStore.Durability;
using KeyValueStore.Storage;
using DeleteResult = FASTER.core.FasterKV<FASTER.core.SpanByte, FASTER.core.SpanByte>.RmwAsyncResult<FASTER.core.SpanByte, KeyValueStore.Storage.PooledBuffer, FASTER.core.Empty>;

namespace KeyValueStore.Engine;

/// <summary>
/// Deletes of one key, in the shape of an upsert (<see cref="UpsertAsync"/>, whose remarks say why it is not an async
/// method): admission, the write barrier, the key's stripe, the journal's turn, a session, then FASTER's delete, which is
/// a read-modify-write so that its status says whether a live record existed. A delete never waits for room in the log,
/// since it is how room is made.
/// </summary>
internal sealed partial class FasterRecordStore
{
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
    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
    {
        AdmittedWrite write;
        try
        {
            _fault.ThrowIfFaulted();
            write = new AdmittedWrite(_gate.Enter(this), _keyStripes.StripeOf(key.Span), sealedValue: null);
        }
        catch (Exception e)
        {
            return ValueTask.FromException<bool>(e);
        }

        // As in UpsertAsync: set while this method holds a begun turn or a session.
        WriteTurn turn = default;
        bool turnBegun = false;
        SessionPool<StoreSession>.Scope lease = default;
        bool leased = false;
        try
        {
            if (!_writes.TryEnterScope(out WriteBarrier.Scope barrier))
            {
                return DeleteWaitingAsync(write, key, cancellationToken);
            }

            write.Entered(barrier);
            if (!_keyStripes.TryEnter(write.Stripe, out KeyStripeLocks.Scope held))
            {
                return DeleteWaitingAsync(write, key, cancellationToken);
            }

            ValueTask<WriteTurn> beginning = _journal.BeginWriteAsync(held, write.Stripe, key, default, isDelete: true, cancellationToken);
            if (!beginning.IsCompletedSuccessfully)
            {
                return FinishDeleteAsync(write, beginning, renting: null, issued: null, key);
            }

            // As in UpsertAsync: a ValueTask's result is taken once, and what was taken goes on as a completed one.
            turn = beginning.Result;
            turnBegun = true;
            ValueTask<SessionPool<StoreSession>.Scope> renting = _sessions.RentAsync(turn.Cancellation);
            if (!renting.IsCompletedSuccessfully || _fault.IsFaulted)
            {
                turnBegun = false;
                return FinishDeleteAsync(write, new ValueTask<WriteTurn>(turn), renting, issued: null, key);
            }

            lease = renting.Result;
            leased = true;
            ValueTask<DeleteResult> issued = PinnedRecord.DeleteAsync(lease.Session, key.Span);
            if (!issued.IsCompletedSuccessfully || issued.Result.Status.IsPending)
            {
                turnBegun = leased = false;
                return FinishDeleteAsync(write, new ValueTask<WriteTurn>(turn), new ValueTask<SessionPool<StoreSession>.Scope>(lease), issued, key);
            }

            bool found = issued.Result.Status.Found;
            leased = false;
            lease.Dispose();
            turnBegun = false;
            EndDelete(write.Stripe, turn, found);
            write.Dispose();
            return new ValueTask<bool>(found);
        }
        catch (Exception e)
        {
            EndUnapplied(write, leased, lease, turnBegun, turn);
            return ValueTask.FromException<bool>(e);
        }
    }

    /// <summary>The rest of a delete that must wait for the write barrier (unless it passed it) or its stripe; it owns <paramref name="write"/>.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> DeleteWaitingAsync(AdmittedWrite write, ReadOnlyMemory<byte> key, CancellationToken cancellationToken)
    {
        ValueTask<WriteTurn> beginning;
        try
        {
            if (!write.HoldsBarrier)
            {
                write.Entered(await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false));
            }

            KeyStripeLocks.Scope held = await _keyStripes.EnterAsync(write.Stripe, cancellationToken).ConfigureAwait(false);
            beginning = _journal.BeginWriteAsync(held, write.Stripe, key, default, isDelete: true, cancellationToken);
        }
        catch
        {
            write.Dispose();
            throw;
        }

        return await FinishDeleteAsync(write, beginning, renting: null, issued: null, key).ConfigureAwait(false);
    }

    /// <summary>The rest of a delete from its turn on, as <see cref="FinishUpsertAsync"/> for an upsert; it owns <paramref name="write"/>.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> FinishDeleteAsync(
        AdmittedWrite write,
        ValueTask<WriteTurn> beginning,
        ValueTask<SessionPool<StoreSession>.Scope>? renting,
        ValueTask<DeleteResult>? issued,
        ReadOnlyMemory<byte> key)
    {
        try
        {
            WriteTurn turn = await beginning.ConfigureAwait(false);
            bool applied = false;
            bool found = false;
            try
            {
                using SessionPool<StoreSession>.Scope lease = await (renting ?? _sessions.RentAsync(turn.Cancellation)).ConfigureAwait(false);
                if (issued is null)
                {
                    _fault.ThrowIfFaulted();
                    issued = PinnedRecord.DeleteAsync(lease.Session, key.Span);
                }

                DeleteResult result = await WaitForIssuedAsync(lease.Session, issued.Value).ConfigureAwait(false);
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
                if (!applied)
                {
                    _stripeWrites.Count(write.Stripe);
                    _journal.EndWrite(turn, applied: false, changedRecords: false);
                }
            }

            EndDelete(write.Stripe, turn, found);
            return found;
        }
        finally
        {
            write.Dispose();
        }
    }

    /// <summary>Ends an applied delete's turn, and tells the compactor of the write and of a record it removed.</summary>
    private void EndDelete(int stripe, in WriteTurn turn, bool found)
    {
        _stripeWrites.Count(stripe);
        _journal.EndWrite(turn, applied: true, changedRecords: found);
        if (found)
        {
            Compactor.NoteRecordDeleted();
        }

        Compactor.NoteWrite();
    }
}
