using System;
using System.Buffers;
using System.Collections.Generic;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>Replay: the committed transactions from a position on, checked against their sequence numbers.</summary>
internal sealed partial class WriteAheadLog
{
    /// <summary>
    /// Checks that every committed entry from <paramref name="from"/> on reads back and decodes, without applying
    /// anything: a damaged log is then reported before any file of the store is changed.
    /// </summary>
    /// <exception cref="StoreFileCorruptedException">An entry fails its checksum or does not decode, or entries are missing.</exception>
    public Task VerifyAsync(WalPosition from) => ReplayAsync(from, static _ => ValueTask.CompletedTask);

    /// <summary>
    /// Replays the committed transactions from <paramref name="from"/> on into the store being opened (<see cref="ReplayAsync"/>),
    /// and logs what it replayed.
    /// </summary>
    /// <exception cref="StoreFileCorruptedException">The log is damaged before its committed end.</exception>
    /// <exception cref="StoreFaultedException">The disk failed while the replayed writes were applied.</exception>
    public async Task ReplayIntoStoreAsync(WalPosition from, Func<IReadOnlyList<BatchWrite>, ValueTask> apply, TimeProvider timeProvider)
    {
        long started = timeProvider.GetTimestamp();
        long until = CommittedUntilAddress;
        WalReplayResult replayed = await ReplayAsync(from, apply).ConfigureAwait(false);
        _fault.ThrowIfFaulted();
        StoreEvents.WriteAheadLogReplayed(_logger, from.Address, until, replayed.Transactions, replayed.Writes, replayed.IncompleteTransactions, timeProvider.GetElapsedTime(started));
    }

    /// <summary>
    /// Reads the committed transactions from <paramref name="from"/> on, in log order, and hands each to <paramref name="apply"/>.
    /// A transaction whose last piece is missing (the writer was not acknowledged) is left out. Call before anything is
    /// appended: the entries must run from <paramref name="from"/>'s sequence number to the last one the recovered commit covers.
    /// </summary>
    /// <exception cref="StoreFileCorruptedException">
    /// An entry before the committed end fails its checksum or is not a valid entry, or entries are missing.
    /// </exception>
    public async Task<WalReplayResult> ReplayAsync(WalPosition from, Func<IReadOnlyList<BatchWrite>, ValueTask> apply)
    {
        var assembler = new WalTransactionAssembler();
        long transactions = 0;
        long writes = 0;
        long nextSequence = from.NextSequence;
        long end = from.Address;
        if (WalCommitRecordCheck.FirstUnsafe(segment => SegmentPath(_directory, segment), _segmentSizeBits, PageSizeBits, from.Address, _log.CommittedUntilAddress) is long damaged)
        {
            throw new StoreFileCorruptedException(SegmentPathOf(damaged), $"the write-ahead log's commit record at address {damaged} is damaged (its lengths run past its end)");
        }

        using FasterLogScanIterator entries = _log.Scan(from.Address, _log.CommittedUntilAddress, recover: false);
        while (true)
        {
            IMemoryOwner<byte>? entry = null;
            try
            {
                if (!entries.GetNext(MemoryPool<byte>.Shared, out entry, out int length, out long address, out long next))
                {
                    break;
                }

                (WalFragmentKind kind, long firstAddress, long sequence) = WalFragment.ReadHeader(entry.Memory.Span[..length]);
                if (sequence != nextSequence)
                {
                    throw Missing(nextSequence, sequence - 1, end, address);
                }

                nextSequence++;
                end = next;

                // The transaction may point into the entry's buffer: it is applied before the buffer goes back.
                if (assembler.TryAdd(address, kind, firstAddress, entry.Memory[WalFragment.HeaderSize..length], out ReadOnlyMemory<byte> transaction))
                {
                    List<BatchWrite> decoded = WalTransaction.Read(transaction);
                    await apply(decoded).ConfigureAwait(false);
                    transactions++;
                    writes += decoded.Count;
                }
            }
            catch (Exception e) when (IsDamagedRead(e) || e is FormatException)
            {
                throw new StoreFileCorruptedException(SegmentPathOf(entries.NextAddress), $"the write-ahead log entry near address {entries.NextAddress} is damaged ({e.Message})", e);
            }
            finally
            {
                entry?.Dispose();
            }
        }

        // FASTER's scan ends quietly where it cannot read on (a segment file missing or cut short): committed entries
        // after that point would be lost without a trace.
        if (entries.NextAddress < _log.CommittedUntilAddress)
        {
            throw new StoreFileCorruptedException(
                SegmentPathOf(entries.NextAddress),
                $"the write-ahead log's entries end at address {entries.NextAddress}, before its committed end {_log.CommittedUntilAddress}: this segment file is missing or cut short");
        }

        // Entries skipped on the last page the scan read take it past the committed end: only the commit's count shows them.
        if (_recovered.LastSequence >= nextSequence)
        {
            throw Missing(nextSequence, _recovered.LastSequence, end, _log.CommittedUntilAddress);
        }

        return new WalReplayResult(transactions, writes, assembler.IncompleteCount);
    }

    /// <summary>
    /// The error for committed entries FASTER's scan skipped: an entry header damaged to read as zero, which the scan takes
    /// for the padding at a page's end, so that it goes on at the next page.
    /// </summary>
    private StoreFileCorruptedException Missing(long firstMissing, long lastMissing, long after, long before) =>
        new(
            SegmentPathOf(after),
            firstMissing <= lastMissing
                ? $"the write-ahead log entries numbered {firstMissing} to {lastMissing} are missing between addresses {after} and {before}: an entry header there is damaged"
                : $"the write-ahead log entry at address {before} is numbered {lastMissing + 1}, but {firstMissing} was next: the log's order is damaged");
}
