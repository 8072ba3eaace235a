using System;
using System.Collections.Generic;
using System.Runtime.ExceptionServices;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Commit mode's writes: each is appended to the write-ahead log, committed, and only then applied, in its stripe's log
/// order (<see cref="ApplyTurns"/>). No reader ever sees a write that is not durable, and a write whose commit failed
/// was never applied.
/// </summary>
/// <remarks>
/// A write holds its key's stripe only while it appends and takes its ticket, not through the commit: writes of one hot
/// key then share group commits. It holds its barrier admission throughout, so a checkpoint (which drains the barrier)
/// sees a write logged and applied, or neither. Cancellation applies until the entry is appended; from then on the
/// write runs to its end, because recovery would replay it anyway.
/// </remarks>
internal sealed partial class FasterRecordStore
{
    /// <summary>Logs, commits and applies one upsert or delete; returns whether a delete found a live record.</summary>
    private async ValueTask<bool> LogThenApplyAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, bool isDelete, CancellationToken cancellationToken)
    {
        using OperationGate.Scope admission = _gate.Enter(this);
        int stripe = _keyStripes.StripeOf(key.Span);
        using WriteBarrier.Scope write = await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false);
        long address;
        long ticket;
        using (KeyStripeLocks.Scope held = await _keyStripes.EnterAsync(stripe, cancellationToken).ConfigureAwait(false))
        {
            _fault.ThrowIfFaulted();
            address = await _writeAheadLog!.AppendAsync(key, value, isDelete).ConfigureAwait(false);
            ticket = _applyTurns!.TakeTicket(stripe);
        }

        // A failed commit is kept, not thrown: the write must still take its turn and end it, or the writes after it on
        // its stripe would wait forever. (Inline rather than a helper: one state machine less per write.)
        ExceptionDispatchInfo? commitFailure = null;
        try
        {
            await _writeAheadLog.WaitForCommitAsync(address, CancellationToken.None).ConfigureAwait(false);
        }
        catch (StoreFaultedException e)
        {
            commitFailure = ExceptionDispatchInfo.Capture(e);
        }

        await _applyTurns.WaitForTurnAsync(stripe, ticket).ConfigureAwait(false);
        bool found = true;
        try
        {
            commitFailure?.Throw();
            _fault.ThrowIfFaulted();
            using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(CancellationToken.None).ConfigureAwait(false);
            if (isDelete)
            {
                var deleted = await WaitForWriteAsync(lease.Session, PinnedRecord.DeleteAsync(lease.Session, key.Span)).ConfigureAwait(false);
                while (deleted.Status.IsPending)
                {
                    deleted = await WaitForWriteAsync(lease.Session, deleted.CompleteAsync()).ConfigureAwait(false);
                }

                found = deleted.Status.Found;
            }
            else
            {
                await ApplyInSessionAsync(lease.Session, BatchWrite.Upsert(key, value)).ConfigureAwait(false);
            }
        }
        finally
        {
            _applyTurns.EndTurn(stripe, ticket);
        }

        NoteLoggedWrite();
        return found;
    }

    /// <summary>Logs a batch as one transaction, commits it, and applies it; the caller has validated it.</summary>
    private async ValueTask LogThenApplyBatchAsync(IReadOnlyList<BatchWrite> writes, CancellationToken cancellationToken)
    {
        using OperationGate.Scope admission = _gate.Enter(this);
        int[] stripes = _keyStripes.StripesOf(writes, write => write.Key);
        using WriteBarrier.Scope write = await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false);
        long address;
        long[] tickets;
        using (KeyStripeLocks.ManyScope held = await _keyStripes.EnterManyAsync(stripes, cancellationToken).ConfigureAwait(false))
        {
            _fault.ThrowIfFaulted();
            address = await _writeAheadLog!.AppendAsync(writes).ConfigureAwait(false);
            tickets = TakeTickets(stripes);
        }

        await ApplyInTurnsAsync(address, stripes, tickets, writes).ConfigureAwait(false);
    }

    /// <summary>
    /// Commit mode's read-modify-write of several keys: reads them once every logged write of their stripes is applied,
    /// computes the writes, and logs, commits and applies them, holding the stripes from the read to the append.
    /// </summary>
    private async ValueTask LogThenApplyUpdateAsync(
        IReadOnlyList<ReadOnlyMemory<byte>> keys,
        Func<IReadOnlyList<byte[]?>, IReadOnlyList<BatchWrite>> update,
        CancellationToken cancellationToken)
    {
        using OperationGate.Scope admission = _gate.Enter(this);
        int[] stripes = _keyStripes.StripesOf(keys, key => key);
        using WriteBarrier.Scope write = await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false);
        IReadOnlyList<BatchWrite> writes;
        long address;
        long[] tickets;
        using (KeyStripeLocks.ManyScope held = await _keyStripes.EnterManyAsync(stripes, cancellationToken).ConfigureAwait(false))
        {
            byte[]?[] current = await ReadAppliedAsync(keys, stripes, cancellationToken).ConfigureAwait(false);
            writes = update(current);
            ValidateBatch(writes);
            EnsureOnlyReadKeysAreWritten(keys, writes);
            if (writes.Count == 0)
            {
                return;
            }

            _fault.ThrowIfFaulted();
            address = await _writeAheadLog!.AppendAsync(writes).ConfigureAwait(false);
            tickets = TakeTickets(stripes);
        }

        await ApplyInTurnsAsync(address, stripes, tickets, writes).ConfigureAwait(false);
    }

    /// <summary>Waits until every write logged on <paramref name="stripes"/> is applied; the caller holds those stripes.</summary>
    private async ValueTask WaitUntilAppliedAsync(int[] stripes)
    {
        for (int i = 0; i < stripes.Length; i++)
        {
            await _applyTurns!.WaitUntilAppliedAsync(stripes[i]).ConfigureAwait(false);
        }
    }

    private async ValueTask<byte[]?[]> ReadAppliedAsync(IReadOnlyList<ReadOnlyMemory<byte>> keys, int[] stripes, CancellationToken cancellationToken)
    {
        await WaitUntilAppliedAsync(stripes).ConfigureAwait(false);
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

    private long[] TakeTickets(int[] stripes)
    {
        var tickets = new long[stripes.Length];
        for (int i = 0; i < stripes.Length; i++)
        {
            tickets[i] = _applyTurns!.TakeTicket(stripes[i]);
        }

        return tickets;
    }

    /// <summary>Waits for the commit, then for the batch's turn on each of its stripes (ascending), applies it, and ends every turn.</summary>
    private async ValueTask ApplyInTurnsAsync(long address, int[] stripes, long[] tickets, IReadOnlyList<BatchWrite> writes)
    {
        ExceptionDispatchInfo? commitFailure = await CommitOrCaptureAsync(address).ConfigureAwait(false);
        for (int i = 0; i < stripes.Length; i++)
        {
            await _applyTurns!.WaitForTurnAsync(stripes[i], tickets[i]).ConfigureAwait(false);
        }

        try
        {
            commitFailure?.Throw();
            _fault.ThrowIfFaulted();
            using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(CancellationToken.None).ConfigureAwait(false);
            for (int i = 0; i < writes.Count; i++)
            {
                await ApplyInSessionAsync(lease.Session, writes[i]).ConfigureAwait(false);
            }
        }
        finally
        {
            for (int i = 0; i < stripes.Length; i++)
            {
                _applyTurns!.EndTurn(stripes[i], tickets[i]);
            }
        }

        NoteLoggedWrite();
    }

    /// <summary>
    /// Waits until the log has committed the entry at <paramref name="address"/>. A failure is captured rather than
    /// thrown: the write must still wait for its turn and end it, or the writes after it on its stripes would wait forever.
    /// </summary>
    private async ValueTask<ExceptionDispatchInfo?> CommitOrCaptureAsync(long address)
    {
        try
        {
            await _writeAheadLog!.WaitForCommitAsync(address, CancellationToken.None).ConfigureAwait(false);
            return null;
        }
        catch (StoreFaultedException e)
        {
            return ExceptionDispatchInfo.Capture(e);
        }
    }

    /// <summary>Tells the checkpointer a write completed, and asks for a checkpoint once the log has grown enough.</summary>
    private void NoteLoggedWrite()
    {
        _checkpointer!.NoteWrite();
        if (_writeAheadLog!.IsDueForCheckpoint)
        {
            _checkpointer.RequestCheckpointForLogSize();
        }
    }
}
