using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>Upserts and deletes of one key: admission, stripe, session, then FASTER (or, in Commit mode, the write-ahead log first).</summary>
internal sealed partial class FasterRecordStore
{
    /// <summary>
    /// Writes a key's value. In <see cref="DurabilityMode.Commit"/> mode the write is committed to the write-ahead log
    /// first and applied after (<see cref="LogThenApplyAsync"/>).
    /// </summary>
    /// <exception cref="StoreFaultedException">The store's disk failed, before or while the write ran; it was not acknowledged.</exception>
    public async ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, CancellationToken cancellationToken = default)
    {
        EnsureRecordFits(key.Length, value.Length);
        _fault.ThrowIfFaulted();
        if (_applyTurns is not null)
        {
            await LogThenApplyAsync(key, value, isDelete: false, cancellationToken).ConfigureAwait(false);
            return;
        }

        using OperationGate.Scope admission = _gate.Enter(this);
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
            // One async method from admission to completion: a nested async helper would add a state-machine
            // allocation to every operation that waits (for a session, for the disk).
            using WriteBarrier.Scope write = await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false);
            using KeyStripeLocks.Scope keyStripe = await _keyStripes.EnterAsync(stripe, cancellationToken).ConfigureAwait(false);
            using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false);
            _fault.ThrowIfFaulted();
            var result = await WaitForWriteAsync(lease.Session, PinnedRecord.UpsertAsync(lease.Session, key.Span, stored.Span)).ConfigureAwait(false);
            while (result.Status.IsPending)
            {
                result = await WaitForWriteAsync(lease.Session, result.CompleteAsync()).ConfigureAwait(false);
            }
        }
        finally
        {
            if (sealedValue is not null)
            {
                System.Buffers.ArrayPool<byte>.Shared.Return(sealedValue);
            }
        }

        _checkpointer?.NoteWrite();
    }

    /// <summary>
    /// Deletes a key. Returns true exactly when a live record existed, in memory or on disk. In
    /// <see cref="DurabilityMode.Commit"/> mode the delete is committed to the write-ahead log first and applied after,
    /// also when the key turns out to be absent: that is known only once the delete runs.
    /// </summary>
    /// <exception cref="StoreFaultedException">The store's disk failed, before or while the delete ran; it was not acknowledged.</exception>
    public async ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
    {
        _fault.ThrowIfFaulted();
        if (_applyTurns is not null)
        {
            return await LogThenApplyAsync(key, default, isDelete: true, cancellationToken).ConfigureAwait(false);
        }

        using OperationGate.Scope admission = _gate.Enter(this);
        int stripe = _keyStripes.StripeOf(key.Span);
        bool found;
        using (WriteBarrier.Scope write = await _writes.EnterScopeAsync(cancellationToken).ConfigureAwait(false))
        using (KeyStripeLocks.Scope keyStripe = await _keyStripes.EnterAsync(stripe, cancellationToken).ConfigureAwait(false))
        using (SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false))
        {
            _fault.ThrowIfFaulted();
            var result = await WaitForWriteAsync(lease.Session, PinnedRecord.DeleteAsync(lease.Session, key.Span)).ConfigureAwait(false);
            while (result.Status.IsPending)
            {
                result = await WaitForWriteAsync(lease.Session, result.CompleteAsync()).ConfigureAwait(false);
            }

            found = result.Status.Found;
        }

        if (found)
        {
            _checkpointer?.NoteWrite();
        }

        return found;
    }

    /// <summary>Awaits a write issued to FASTER; if the disk fails meanwhile, gives up on it and its session (<see cref="EpochNudger.WaitAsync{T}(ValueTask{T}, StoreFault?)"/>).</summary>
    /// <exception cref="StoreFaultedException">The store's disk failed while the write waited.</exception>
    private async ValueTask<T> WaitForWriteAsync<T>(StoreSession session, ValueTask<T> operation)
    {
        try
        {
            return await _epochNudger.WaitAsync(operation, _fault).ConfigureAwait(false);
        }
        catch (StoreFaultedException)
        {
            _sessions.Abandon(session);
            throw;
        }
    }
}
