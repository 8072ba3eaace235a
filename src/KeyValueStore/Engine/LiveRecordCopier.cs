using System;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Compaction;
using KeyValueStore.Concurrency;
using KeyValueStore.Durability;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Copies the live records of a range of the log to its tail while writers run (<see cref="CopyLiveRecords"/>): scans
/// the range, and for each record reads its key's latest record; a record that is still the latest is written again,
/// as an ordinary upsert of its stored bytes, with its key's stripe held.
/// </summary>
/// <remarks>
/// Why not FASTER's own compaction beside the writers: it links each copy with a hash entry it read before latching the
/// bucket, so a write of that key in between leaves an unlinked record that later scans misread
/// (<see cref="KeyStripeLocks"/>); it runs only while back-pressure holds every writer out
/// (<see cref="FasterRecordStore.CopyLiveRecordsAsync"/>). Here a copy is an upsert like any other, kept from the key's
/// writes by the same stripe that keeps writes from each other, so only writes of the one stripe being copied wait, for
/// one read and one upsert. The price is speed: a record still live costs two reads of it, so this copies about a third
/// as fast as FASTER's compaction (docs/benchmarks.md).
/// <para>
/// A record is first checked without the stripe: once a newer record of its key exists, it can never be the latest
/// again, so most superseded records are dropped without touching a lock. For one that looks latest the stripe is taken
/// and the journal's admitted writes of that stripe applied (<see cref="IWriteJournal.WaitUntilAppliedAsync"/>), so no
/// write of the key can come between then and the copy; it is checked again only if a write of its stripe was applied
/// since the first check (<see cref="StripeWriteCounts"/>), which under most loads it was not. The stored bytes are
/// copied as they are, seal included (<see cref="ValueChecksum"/> covers the key and value, not the address).
/// </para>
/// <para>
/// A latest record the store's <see cref="CompactionDropRule"/> drops (an expired cache entry) is not copied, as if a
/// newer record had superseded it.
/// </para>
/// <para>
/// Records are copied by up to <see cref="Workers"/> sessions at once, as many as the slice asks for: a record on disk costs a read, and the reads of one
/// batch overlap. The scan itself runs on the thread pool, since it blocks on the disk while it loads pages. The slices
/// of one pass share one scan of the log (<see cref="SliceScan"/>). In a slice with time to spare, each worker before
/// each record, and the scan every <see cref="ScannedRecords.RecordsPerGiveWay"/> records, gives its core to a waiting
/// foreground operation (<see cref="Concurrency.GiveWay"/>), until the pass hurries the slice (<see cref="SlicePace"/>).
/// </para>
/// </remarks>
internal sealed class LiveRecordCopier : IDisposable
{
    /// <summary>The most records copied at once, each in its own session; a slice may ask for fewer.</summary>
    public const int Workers = Compaction.CompactionPass.MaxCopyWorkers;

    /// <summary>How many bytes of keys and values one scanned batch gathers.</summary>
    private const int BatchBytes = 1 << 20;

    private readonly FasterKV<SpanByte, SpanByte> _store;
    private readonly KeyStripeLocks _keyStripes;
    private readonly StripeWriteCounts _stripeWrites;
    private readonly IWriteJournal _journal;
    private readonly Func<StoreSession> _newSession;
    private readonly EpochNudger _epochNudger;
    private readonly StoreFault _fault;
    private readonly int _pageSizeBytes;
    private readonly CompactionDropRule _dropRule;
    private readonly Action _giveWay;

    // A batch's arena is over a megabyte (the large-object heap): kept between slices rather than allocated for each.
    private ScannedRecords? _spareBatch;

    // The pass's scan, kept between its slices; null while a slice has it, or after one abandoned it to a failed disk.
    private SliceScan? _scan;
    private int _scansOpened;
    private int _sessionsOpened;

    public LiveRecordCopier(
        FasterKV<SpanByte, SpanByte> store,
        KeyStripeLocks keyStripes,
        StripeWriteCounts stripeWrites,
        IWriteJournal journal,
        Func<StoreSession> newSession,
        EpochNudger epochNudger,
        StoreFault fault,
        int pageSizeBytes,
        CompactionDropRule dropRule,
        Action giveWay)
    {
        _dropRule = dropRule;
        _giveWay = giveWay;
        _store = store;
        _keyStripes = keyStripes;
        _stripeWrites = stripeWrites;
        _journal = journal;
        _newSession = newSession;
        _epochNudger = epochNudger;
        _fault = fault;
        _pageSizeBytes = pageSizeBytes;
    }

    /// <summary>Gets how many scans of the log the copies have opened; for tests and diagnostics.</summary>
    public int ScansOpened => Volatile.Read(ref _scansOpened);

    /// <summary>Gets how many sessions the copies have opened; for tests and diagnostics.</summary>
    public int SessionsOpened => Volatile.Read(ref _sessionsOpened);

    /// <inheritdoc cref="CopyLiveRecords"/>
    public async Task<long> CopyAsync(long fromAddress, long untilAddress, SlicePace pace, long passUntilAddress = 0)
    {
        _fault.ThrowIfFaulted();

        // Opened as the pace asks, before each batch: a slice hurried while it copies takes on more workers.
        var sessions = new StoreSession[Workers];
        int opened = 0;

        // A slice with time to spare lets waiting foreground operations go first between records, until its pass hurries
        // it; one the log's growth hurries copies at full speed, as the writers would otherwise soon be held for it.
        Action? scanGivesWay = pace.GivesWay ? () => GiveWayWhile(pace) : null;
        SliceScan scan = Interlocked.Exchange(ref _scan, null) ?? new SliceScan(_store);
        if (scan.BeginSlice(fromAddress, untilAddress, passUntilAddress))
        {
            Interlocked.Increment(ref _scansOpened);
        }

        ScannedRecords batch = Interlocked.Exchange(ref _spareBatch, null) ?? new ScannedRecords(BatchBytes, _pageSizeBytes);
        Task<bool>? filling = null;
        bool abandoned = false;
        bool copiedAll = false;
        try
        {
            long copied = 0;
            while (true)
            {
                filling = Task.Run(() => batch.FillFrom(scan, scanGivesWay));
                if (!await filling.WaitAsync(_fault.Token).ConfigureAwait(false))
                {
                    copiedAll = true;
                    return copied;
                }

                opened = OpenSessions(sessions, opened, pace.CopyWorkers);
                copied += await CopyBatchAsync(batch, sessions, opened, pace).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (_fault.IsFaulted)
        {
            // The scan waits for a page the failed disk will never load; its thread stays parked until the process ends.
            abandoned = true;
            throw _fault.ToException();
        }
        catch (StoreFaultedException)
        {
            // A copy waits for a flush that will never come: its session stays parked with it.
            abandoned = true;
            throw;
        }
        finally
        {
            if (!abandoned && filling?.IsCompleted != false)
            {
                KeepForTheNextSlice(scan, completed: copiedAll);
                _spareBatch = batch;
                for (int i = 0; i < opened; i++)
                {
                    sessions[i].Dispose();
                }
            }
        }
    }

    /// <summary>
    /// Closes the scan a pass left open: before the log's records are copied another way (which moves the begin address
    /// past where it stopped), and at the store's close.
    /// </summary>
    public void CloseScan() => Interlocked.Exchange(ref _scan, null)?.Dispose();

    /// <summary>Closes the scan a pass left open.</summary>
    public void Dispose() => CloseScan();

    /// <summary>
    /// Keeps the slice's scan for the pass's next slice when the slice was copied whole; closes it when a copy failed, as
    /// the next call would not continue it.
    /// </summary>
    private void KeepForTheNextSlice(SliceScan scan, bool completed)
    {
        if (completed)
        {
            scan.EndSlice();
        }
        else
        {
            scan.Close();
        }

        Interlocked.Exchange(ref _scan, scan)?.Dispose();
    }

    /// <summary>Opens sessions up to <paramref name="wanted"/> (at most <see cref="Workers"/>), <paramref name="opened"/> being open; returns how many are.</summary>
    private int OpenSessions(StoreSession[] sessions, int opened, int wanted)
    {
        int target = Math.Clamp(wanted, 1, Workers);
        for (; opened < target; opened++)
        {
            sessions[opened] = _newSession();
            Interlocked.Increment(ref _sessionsOpened);
        }

        return opened;
    }

    /// <summary>Copies the records of <paramref name="batch"/> that are still live, each of the first <paramref name="sessionCount"/> sessions taking the next one; returns the bytes appended.</summary>
    private async Task<long> CopyBatchAsync(ScannedRecords batch, StoreSession[] sessions, int sessionCount, SlicePace pace)
    {
        var cursor = new BatchCursor();
        var workers = new Task<long>[sessionCount];
        for (int i = 0; i < workers.Length; i++)
        {
            workers[i] = CopyShareAsync(batch, sessions[i], cursor, pace);
        }

        long copied = 0;
        foreach (long bytes in await Task.WhenAll(workers).ConfigureAwait(false))
        {
            copied += bytes;
        }

        return copied;
    }

    private async Task<long> CopyShareAsync(ScannedRecords batch, StoreSession session, BatchCursor cursor, SlicePace pace)
    {
        long copied = 0;
        int[] stripeOfRecord = new int[1];
        for (int index = cursor.Next(); index < batch.Count; index = cursor.Next())
        {
            // Read before each record: the pass may hurry the slice while it copies.
            if (pace.GivesWay)
            {
                _giveWay();

                // Foreground continuations queued on the thread pool go first too: a record whose checks and copy complete
                // at once (its page in memory or in the page cache) would otherwise keep this pool thread for the next.
                await Task.Yield();
            }

            copied += await CopyIfLatestAsync(session, batch, index, stripeOfRecord, pace).ConfigureAwait(false);
        }

        return copied;
    }

    /// <summary>The scan's give-way: while the slice has time to spare.</summary>
    private void GiveWayWhile(SlicePace pace)
    {
        if (pace.GivesWay)
        {
            _giveWay();
        }
    }

    /// <summary>Writes a scanned record again if it is still its key's latest live record; returns the bytes appended.</summary>
    /// <remarks>
    /// Pooled: it runs once for every record a pass scans, and each run that waits (for the device, the key's stripe or a
    /// flush) would otherwise box its state anew. While <paramref name="pace"/> gives way (a slice with time to spare) a
    /// live record's copy yields the pool thread first.
    /// </remarks>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<long> CopyIfLatestAsync(StoreSession session, ScannedRecords batch, int index, int[] stripeOfRecord, SlicePace pace)
    {
        ReadOnlyMemory<byte> key = batch.KeyOf(index);
        ReadOnlyMemory<byte> value = batch.ValueOf(index);
        RecordLocation location = batch.LocationOf(index);
        int stripe = _keyStripes.StripeOf(key.Span);
        long writesBefore = _stripeWrites.Read(stripe);
        if (!await IsLatestAsync(session, key, location).ConfigureAwait(false) || _dropRule.ShouldDrop(key.Span, value.Span))
        {
            return 0;
        }

        if (pace.GivesWay)
        {
            // A live record's copy (its stripe, the journal's wait, an upsert) is a step of its own after its check:
            // foreground continuations queued meanwhile go first. Without this yield, reads' p99 beside a pass was about
            // 41 µs, with it 20-32 µs (docs/benchmarks.md).
            await Task.Yield();
        }

        stripeOfRecord[0] = stripe;
        using KeyStripeLocks.Scope held = await _keyStripes.EnterAsync(stripe).ConfigureAwait(false);
        await _journal.WaitUntilAppliedAsync(stripeOfRecord).ConfigureAwait(false);
        if (_stripeWrites.Read(stripe) != writesBefore && !await IsLatestAsync(session, key, location).ConfigureAwait(false))
        {
            return 0;
        }

        var result = await _epochNudger.WaitAsync(PinnedRecord.UpsertAsync(session, key.Span, value.Span), _fault).ConfigureAwait(false);
        while (result.Status.IsPending)
        {
            result = await _epochNudger.WaitAsync(result.CompleteAsync(), _fault).ConfigureAwait(false);
        }

        _stripeWrites.Count(stripe);
        return PinnedRecord.SizeInLog(key.Length, value.Length);
    }

    /// <summary>
    /// Whether the scanned record at <paramref name="location"/> is its key's latest live record, by a locating read
    /// (<see cref="RecordLocation"/> says why not by the read's metadata). Both addresses must match: when a newer record
    /// of the key is found in memory while a disk read waits, FASTER reads the newer one but still reports the disk
    /// address, and the previous address then tells them apart (a newer record links to a later one).
    /// </summary>
    /// <exception cref="StoreFaultedException">The disk failed while the key was read.</exception>
    private ValueTask<bool> IsLatestAsync(StoreSession session, ReadOnlyMemory<byte> key, RecordLocation location)
    {
        ValueTask<RecordLocation?> locating = RecordLocation.OfLatestAsync(session, key, _fault);
        return locating.IsCompletedSuccessfully ? new ValueTask<bool>(locating.Result == location) : IsAtAsync(locating, location);
    }

    /// <summary>The rest of <see cref="IsLatestAsync"/> for a locating read that waits for the disk.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<bool> IsAtAsync(ValueTask<RecordLocation?> locating, RecordLocation location) =>
        await locating.ConfigureAwait(false) == location;

    /// <summary>The next record of a batch to copy, shared by its workers.</summary>
    private sealed class BatchCursor
    {
        private int _next = -1;

        public int Next() => Interlocked.Increment(ref _next);
    }
}
