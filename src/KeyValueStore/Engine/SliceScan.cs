using System;
using FASTER.core;

namespace KeyValueStore.Engine;

/// <summary>
/// One scan of the log over a whole compaction pass, read one slice at a time: each slice continues where the last one
/// stopped, and a new FASTER scan is opened only when a slice does not continue the last (a new pass, or a pass whose
/// previous slice was copied another way).
/// </summary>
/// <remarks>
/// Why: a FASTER scan iterator allocates its page frames (two pinned pages) when it is opened. Opened for every slice
/// (two pages by default), a pass allocated about as many pinned bytes as it scanned, and those large allocations set
/// off a full garbage collection every few slices: 181 against 46 in 45 s of unpaced YCSB-A on the 2-core VM, a fifth
/// of all bytes allocated (docs/benchmarks.md, "A paced load").
/// <para>
/// A slice ends on a page boundary, but FASTER's iterator may step past it (when the rest of the page is empty it moves
/// to the next page's first record). Such a record belongs to the next slice: it is held, unread, as the iterator's
/// current record, and handed out first when the next slice starts. The iterator keeps the current record readable until
/// its next step. Between slices the pass moves the log's begin address to the slice's end, never past a record held.
/// </para>
/// <para>
/// Not thread-safe: one slice at a time, which the copier guarantees by taking this scan for the length of a slice.
/// </para>
/// </remarks>
internal sealed class SliceScan : IDisposable
{
    private readonly FasterKV<SpanByte, SpanByte> _store;
    private IFasterScanIterator<SpanByte, SpanByte>? _scan;
    private long _resumeAt;
    private long _sliceUntil;
    private bool _holdsNext;
    private RecordInfo _heldInfo;

    public SliceScan(FasterKV<SpanByte, SpanByte> store)
    {
        _store = store;
    }

    /// <summary>Gets the address of the record <see cref="TryNext"/> last returned.</summary>
    public long CurrentAddress => _scan!.CurrentAddress;

    /// <summary>
    /// Starts the slice [<paramref name="fromAddress"/>, <paramref name="untilAddress"/>) of the pass that ends at
    /// <paramref name="passUntilAddress"/>: continues the open scan when the slice starts where it stopped, else opens one
    /// to the pass's end. Returns whether it opened a scan.
    /// </summary>
    public bool BeginSlice(long fromAddress, long untilAddress, long passUntilAddress)
    {
        _sliceUntil = untilAddress;
        if (_scan is not null && fromAddress == _resumeAt && untilAddress <= _scan.EndAddress)
        {
            return false;
        }

        Close();
        _scan = _store.Log.Scan(fromAddress, Math.Max(untilAddress, passUntilAddress));
        return true;
    }

    /// <summary>Steps to the slice's next record; false once the slice has none left.</summary>
    public bool TryNext(out RecordInfo info)
    {
        IFasterScanIterator<SpanByte, SpanByte> scan = _scan!;
        if (_holdsNext)
        {
            info = _heldInfo;
            if (scan.CurrentAddress >= _sliceUntil)
            {
                return false;
            }

            _holdsNext = false;
            return true;
        }

        if (scan.NextAddress >= _sliceUntil || !scan.GetNext(out info))
        {
            info = default;
            return false;
        }

        if (scan.CurrentAddress >= _sliceUntil)
        {
            // Stepped over the slice's end to the next page: the next slice's first record.
            _holdsNext = true;
            _heldInfo = info;
            return false;
        }

        return true;
    }

    /// <summary>The key of the record <see cref="TryNext"/> last returned.</summary>
    public ref SpanByte GetKey() => ref _scan!.GetKey();

    /// <summary>The stored value of the record <see cref="TryNext"/> last returned.</summary>
    public ref SpanByte GetValue() => ref _scan!.GetValue();

    /// <summary>Ends the slice: the scan stays open for a slice that continues it, unless it has reached the pass's end.</summary>
    public void EndSlice()
    {
        _resumeAt = _sliceUntil;
        if (_sliceUntil >= _scan!.EndAddress)
        {
            Close();
        }
    }

    /// <summary>Closes the open scan, if any.</summary>
    public void Close()
    {
        _scan?.Dispose();
        _scan = null;
        _holdsNext = false;
    }

    /// <summary>Closes the open scan.</summary>
    public void Dispose() => Close();
}
