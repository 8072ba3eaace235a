using System;
using System.Buffers;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>Appending: transactions split into numbered entries, copied into the log's memory under the append lock.</summary>
internal sealed partial class WriteAheadLog
{
    /// <summary>Appends one upsert or delete; returns its address, to wait for with <see cref="WaitForCommitAsync"/>.</summary>
    /// <exception cref="StoreFaultedException">A commit of the log has failed.</exception>
    public ValueTask<long> AppendAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, bool isDelete)
    {
        ThrowIfFaulted();
        int payloadSize = WalTransaction.SizeOf(key.Length, isDelete ? 0 : value.Length);
        if (payloadSize > MaxFragmentPayload)
        {
            return AppendAsync([new BatchWrite(key, value, isDelete)]);
        }

        byte[] entry = ArrayPool<byte>.Shared.Rent(WalFragment.HeaderSize + payloadSize);
        int length = WalFragment.HeaderSize + WalTransaction.Write(entry.AsSpan(WalFragment.HeaderSize), key.Span, value.Span, isDelete);
        uint crc = WalFragment.WriteHeader(entry, length, WalFragmentKind.Whole, 0);
        return EnqueueAndReturnAsync(entry, length, crc, opensTransaction: false);
    }

    /// <summary>Appends the writes of one atomic batch as one transaction; returns the address of its last entry.</summary>
    /// <exception cref="StoreFaultedException">A commit of the log has failed.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<long> AppendAsync(IReadOnlyList<BatchWrite> writes)
    {
        ThrowIfFaulted();
        byte[] transaction = WalTransaction.Encode(writes, out int length);
        long? first = null;
        try
        {
            if (length <= MaxFragmentPayload)
            {
                return await EnqueueFragmentAsync(WalFragmentKind.Whole, 0, transaction.AsMemory(0, length)).ConfigureAwait(false);
            }

            first = await EnqueueFragmentAsync(WalFragmentKind.First, 0, transaction.AsMemory(0, MaxFragmentPayload)).ConfigureAwait(false);
            long? last = first;
            for (int offset = MaxFragmentPayload; offset < length; offset += MaxFragmentPayload)
            {
                int size = Math.Min(MaxFragmentPayload, length - offset);
                WalFragmentKind kind = offset + size == length ? WalFragmentKind.Last : WalFragmentKind.Middle;
                last = await EnqueueFragmentAsync(kind, first.Value, transaction.AsMemory(offset, size)).ConfigureAwait(false);
            }

            return last.Value;
        }
        finally
        {
            // Once its last piece is in (or its append failed), a checkpoint may record a position after it.
            if (first is { } opened)
            {
                CloseTransaction(opened);
            }

            ArrayPool<byte>.Shared.Return(transaction);
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<long> EnqueueFragmentAsync(WalFragmentKind kind, long first, ReadOnlyMemory<byte> payload)
    {
        byte[] entry = ArrayPool<byte>.Shared.Rent(WalFragment.HeaderSize + payload.Length);
        payload.Span.CopyTo(entry.AsSpan(WalFragment.HeaderSize));
        uint crc = WalFragment.WriteHeader(entry, WalFragment.HeaderSize + payload.Length, kind, first);
        return await EnqueueAndReturnAsync(entry, WalFragment.HeaderSize + payload.Length, crc, opensTransaction: kind == WalFragmentKind.First).ConfigureAwait(false);
    }

    /// <summary>
    /// Numbers and appends <paramref name="entry"/>'s first <paramref name="length"/> bytes (<paramref name="crc"/>: what
    /// <see cref="WalFragment.WriteHeader"/> returned), then returns the rented buffer.
    /// </summary>
    private ValueTask<long> EnqueueAndReturnAsync(byte[] entry, int length, uint crc, bool opensTransaction)
    {
        bool appended;
        long address;
        try
        {
            appended = TryEnqueue(entry, length, crc, opensTransaction, out address, out _);
        }
        catch
        {
            ArrayPool<byte>.Shared.Return(entry);
            throw;
        }

        if (!appended)
        {
            return EnqueueWhenFlushedAsync(entry, length, crc, opensTransaction);
        }

        ArrayPool<byte>.Shared.Return(entry);
        return ValueTask.FromResult(address);
    }

    /// <summary>Forgets the transaction whose first piece is at <paramref name="first"/>: all its pieces are in, or its append failed.</summary>
    private void CloseTransaction(long first)
    {
        lock (_appendLock)
        {
            _openTransactions.Remove(first);
        }
    }

    /// <summary>
    /// Appends once the log's memory, full of pages still being flushed, has room: each try that fails waits for a commit
    /// of everything before it, which flushes those pages. Returns the rented buffer.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<long> EnqueueWhenFlushedAsync(byte[] entry, int length, uint crc, bool opensTransaction)
    {
        try
        {
            while (true)
            {
                ThrowIfFaulted();
                if (TryEnqueue(entry, length, crc, opensTransaction, out long address, out long tail))
                {
                    return address;
                }

                // The wait writers use for their own entries: it ends at the store's fault (a failed write of the store's
                // segments stops the group commits), and the next try throws it.
                _commitRequested.Writer.TryWrite(true);
                if (_log.CommittedUntilAddress >= tail)
                {
                    // The pages were flushed between the try and the wait; let them be closed before the next try.
                    await Task.Yield();
                }
                else
                {
                    await WaitForEntryAsync(tail - 1).ConfigureAwait(false);
                }
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(entry);
        }
    }

    /// <summary>
    /// Gives the entry the next sequence number and copies it into the log's memory, both under the append lock, so the
    /// numbers follow the addresses. False, with the log's tail, when that memory is full of pages still being flushed.
    /// The first piece of a transaction split in pieces is recorded as open in the same step (<see cref="ReplayStart"/>).
    /// </summary>
    private bool TryEnqueue(byte[] entry, int length, uint crc, bool opensTransaction, out long address, out long tail)
    {
        lock (_appendLock)
        {
            WalFragment.Seal(entry, _nextSequence, crc);
            if (_log.TryEnqueue(entry.AsSpan(0, length), out address))
            {
                if (opensTransaction)
                {
                    _openTransactions.Add(address, new WalPosition(address, _nextSequence));
                }

                _nextSequence++;
                tail = 0;
                return true;
            }

            tail = _log.TailAddress;
            return false;
        }
    }
}
