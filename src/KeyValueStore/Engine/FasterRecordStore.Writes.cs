using System;
using System.Buffers;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Durability;
using KeyValueStore.Storage;
using UpsertResult = FASTER.core.FasterKV<FASTER.core.SpanByte, FASTER.core.SpanByte>.UpsertAsyncResult<FASTER.core.SpanByte, KeyValueStore.Storage.PooledBuffer, FASTER.core.Empty>;

namespace KeyValueStore.Engine;

/// <summary>
/// Upserts of one key: admission, the write barrier, the key's stripe, the journal's turn, a session, then FASTER; the
/// journal's turn ends whether or not the write reached FASTER. Each write then lets the compactor check whether the log
/// has grown past its threshold. Under a disk budget an upsert first waits for room in the log
/// (<see cref="Compaction.LogCompactor.WaitForRoomAsync"/>), before the write barrier, which back-pressure closes.
/// Deletes take the same steps (<c>FasterRecordStore.Deletes.cs</c>).
/// </summary>
/// <remarks>
/// An upsert is not an async method: when every step completes at once (room in the log, the barrier open, the stripe
/// free, a turn and a session at hand, FASTER done in memory) it returns a completed task without entering a state
/// machine, which cost more than all those steps together (the hot-path section of docs/benchmarks.md). At the first
/// step that must wait it hands what it holds (<see cref="AdmittedWrite"/>) to one async method that goes on from there:
/// <see cref="UpsertWaitingAsync"/> before the turn (it waits for room, the barrier or the stripe, then begins the
/// turn), <see cref="FinishUpsertAsync"/> from the turn on. Errors come back in the returned task, never thrown by the
/// call.
/// </remarks>
internal sealed partial class FasterRecordStore
{
    /// <summary>Writes a key's value, durably as far as the store's durability mode promises once this completes.</summary>
    /// <exception cref="StoreFaultedException">
    /// The store's disk failed before the write was durable; it was not acknowledged, and a reopen does not show it. A
    /// Commit-mode write that was committed to the write-ahead log is acknowledged even if the store faults before it is
    /// applied: a reopen replays it.
    /// </exception>
    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, CancellationToken cancellationToken = default)
    {
        AdmittedWrite write;
        ReadOnlyMemory<byte> stored;
        try
        {
            EnsureRecordFits(key.Length, value.Length);
            _fault.ThrowIfFaulted();
            write = AdmitUpsert(key, value, out stored);
        }
        catch (Exception e)
        {
            return ValueTask.FromException(e);
        }

        // Set while this method holds a begun turn or a session, so that an exception before it hands them over ends them.
        WriteTurn turn = default;
        bool turnBegun = false;
        SessionPool<StoreSession>.Scope lease = default;
        bool leased = false;
        try
        {
            if (!Compactor.HasRoom || !_writes.TryEnterScope(out WriteBarrier.Scope barrier))
            {
                return UpsertWaitingAsync(write, key, value, stored, cancellationToken);
            }

            write.Entered(barrier);
            if (!_keyStripes.TryEnter(write.Stripe, out KeyStripeLocks.Scope held))
            {
                return UpsertWaitingAsync(write, key, value, stored, cancellationToken);
            }

            ValueTask<WriteTurn> beginning = _journal.BeginWriteAsync(held, write.Stripe, key, value, isDelete: false, cancellationToken);
            if (!beginning.IsCompletedSuccessfully)
            {
                return FinishUpsertAsync(write, beginning, renting: null, issued: null, key, stored);
            }

            // A ValueTask's result is taken once: a pooled one (the journal's, the session pool's) that completed after it
            // was returned gives its box back when its result is taken, and awaiting it again throws. What was taken goes
            // on as a completed ValueTask of its own.
            turn = beginning.Result;
            turnBegun = true;
            ValueTask<SessionPool<StoreSession>.Scope> renting = _sessions.RentAsync(turn.Cancellation);
            if (!renting.IsCompletedSuccessfully || _fault.IsFaulted)
            {
                turnBegun = false;
                return FinishUpsertAsync(write, new ValueTask<WriteTurn>(turn), renting, issued: null, key, stored);
            }

            lease = renting.Result;
            leased = true;
            ValueTask<UpsertResult> issued = PinnedRecord.UpsertAsync(lease.Session, key.Span, stored.Span);
            if (!issued.IsCompletedSuccessfully || issued.Result.Status.IsPending)
            {
                turnBegun = leased = false;
                return FinishUpsertAsync(write, new ValueTask<WriteTurn>(turn), new ValueTask<SessionPool<StoreSession>.Scope>(lease), issued, key, stored);
            }

            leased = false;
            lease.Dispose();
            turnBegun = false;
            _stripeWrites.Count(write.Stripe);
            _journal.EndWrite(turn, applied: true, changedRecords: true);
            Compactor.NoteWrite();
            write.Dispose();
            return ValueTask.CompletedTask;
        }
        catch (Exception e)
        {
            EndUnapplied(write, leased, lease, turnBegun, turn);
            return ValueTask.FromException(e);
        }
    }

    /// <summary>
    /// Ends what an upsert's or a delete's synchronous start held when it threw before the write was applied or handed
    /// over: the session, the turn (not applied), then the admitted write. FASTER's synchronous throw is never the store's
    /// fault, which a logged turn would acknowledge; the async methods that finish a write handle that one.
    /// </summary>
    private void EndUnapplied(in AdmittedWrite write, bool leased, SessionPool<StoreSession>.Scope lease, bool turnBegun, in WriteTurn turn)
    {
        if (leased)
        {
            lease.Dispose();
        }

        if (turnBegun)
        {
            _stripeWrites.Count(write.Stripe);
            _journal.EndWrite(turn, applied: false, changedRecords: false);
        }

        write.Dispose();
    }

    /// <summary>Admits an upsert: the gate, the key's stripe, and the value sealed with its checksum when the store keeps them.</summary>
    private AdmittedWrite AdmitUpsert(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, out ReadOnlyMemory<byte> stored)
    {
        int stripe = _keyStripes.StripeOf(key.Span);
        OperationGate.Scope admission = _gate.Enter(this);
        byte[]? sealedValue = null;
        stored = value;
        if (_valueChecksums)
        {
            try
            {
                sealedValue = ValueChecksum.Seal(key.Span, value.Span, out int sealedLength);
                stored = sealedValue.AsMemory(0, sealedLength);
            }
            catch
            {
                admission.Dispose();
                throw;
            }
        }

        return new AdmittedWrite(admission, stripe, sealedValue);
    }

    /// <summary>
    /// The rest of an upsert that must wait before its turn: for room in the log and the write barrier (unless it passed
    /// the barrier already), then its stripe. It owns <paramref name="write"/> from here.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask UpsertWaitingAsync(
        AdmittedWrite write, ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, ReadOnlyMemory<byte> stored, CancellationToken cancellationToken)
    {
        ValueTask<WriteTurn> beginning;
        try
        {
            if (!write.HoldsBarrier)
            {
                if (!Compactor.HasRoom)
                {
                    await Compactor.WaitForRoomAsync(cancellationToken).ConfigureAwait(false);
                }

                write.Entered(await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false));
            }

            KeyStripeLocks.Scope held = await _keyStripes.EnterAsync(write.Stripe, cancellationToken).ConfigureAwait(false);
            beginning = _journal.BeginWriteAsync(held, write.Stripe, key, value, isDelete: false, cancellationToken);
        }
        catch
        {
            write.Dispose();
            throw;
        }

        await FinishUpsertAsync(write, beginning, renting: null, issued: null, key, stored).ConfigureAwait(false);
    }

    /// <summary>
    /// The rest of an upsert from its turn on: the turn once <paramref name="beginning"/> completes, a session (rented
    /// already when <paramref name="renting"/> is given), FASTER's upsert (issued already when <paramref name="issued"/>
    /// is given) until it completes, then the turn's end. It owns <paramref name="write"/>.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask FinishUpsertAsync(
        AdmittedWrite write,
        ValueTask<WriteTurn> beginning,
        ValueTask<SessionPool<StoreSession>.Scope>? renting,
        ValueTask<UpsertResult>? issued,
        ReadOnlyMemory<byte> key,
        ReadOnlyMemory<byte> stored)
    {
        try
        {
            WriteTurn turn = await beginning.ConfigureAwait(false);
            bool applied = false;
            try
            {
                using SessionPool<StoreSession>.Scope lease = await (renting ?? _sessions.RentAsync(turn.Cancellation)).ConfigureAwait(false);
                if (issued is null)
                {
                    _fault.ThrowIfFaulted();
                    issued = PinnedRecord.UpsertAsync(lease.Session, key.Span, stored.Span);
                }

                UpsertResult result = await WaitForIssuedAsync(lease.Session, issued.Value).ConfigureAwait(false);
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
                _stripeWrites.Count(write.Stripe);
                _journal.EndWrite(turn, applied, changedRecords: applied);
            }

            Compactor.NoteWrite();
        }
        finally
        {
            write.Dispose();
        }
    }
}
