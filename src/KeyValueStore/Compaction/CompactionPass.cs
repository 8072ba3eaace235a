using System;
using System.Linq;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Storage;

namespace KeyValueStore.Compaction;

/// <summary>
/// One compaction pass: copies the live records below an address to the log's tail and moves the begin address past
/// them, one slice of whole pages at a time, with writers held out of each slice and let in between slices. While the
/// log is over the policy's back-pressure bound, writers stay out for the next slice too: they are slowed as far as
/// compaction is behind, and the disk stays bounded. Deletes no file; the caller's journal decides when to truncate.
/// </summary>
/// <remarks>
/// Writers are held out of a slice because FASTER's compaction links each copy with a hash entry it read before
/// latching the bucket: a write to that key in between would leave an unlinked record that every later scan misreads
/// (see <see cref="WriteBarrier"/>). Reads go on. With writers held, the bytes a slice appends to the tail are its
/// copies alone, which is how a pass measures the live data (<see cref="CompactionThresholdPolicy"/>).
/// </remarks>
internal sealed class CompactionPass
{
    /// <summary>The least a slice copies, rounded down to whole pages (and at least one): small enough that writers held for it wait milliseconds, large enough that the barrier's drain is paid rarely.</summary>
    public const long MinSliceBytes = 4L << 20;

    private readonly FasterKV<SpanByte, SpanByte> _store;
    private readonly Action<long> _copyLiveRecordsBelow;
    private readonly WriteBarrier _writes;
    private readonly StoreFault _fault;
    private readonly CompactionThresholdPolicy _policy;
    private readonly CompactionStatistics _statistics;
    private readonly LogFileLayout? _layout;
    private readonly int _segmentSizeBits;
    private readonly long _pageSizeMask;
    private readonly long _sliceBytes;
    private readonly TimeProvider _timeProvider;

    public CompactionPass(
        FasterKV<SpanByte, SpanByte> store,
        Action<long> copyLiveRecordsBelow,
        WriteBarrier writes,
        StoreFault fault,
        CompactionThresholdPolicy policy,
        CompactionStatistics statistics,
        LogFileLayout? layout,
        int pageSizeBits,
        int segmentSizeBits,
        TimeProvider timeProvider)
    {
        _store = store;
        _copyLiveRecordsBelow = copyLiveRecordsBelow;
        _writes = writes;
        _fault = fault;
        _policy = policy;
        _statistics = statistics;
        _layout = layout;
        _segmentSizeBits = segmentSizeBits;
        _pageSizeMask = (1L << pageSizeBits) - 1;
        _sliceBytes = Math.Max(1L << pageSizeBits, MinSliceBytes & ~_pageSizeMask);
        _timeProvider = timeProvider;
    }

    /// <summary>Compacts up to <paramref name="untilAddress"/>, a page boundary above the begin address.</summary>
    /// <exception cref="StoreFaultedException">The disk failed while a slice copied.</exception>
    public async Task<CompactionResult> RunAsync(long untilAddress)
    {
        long beginBefore = _store.Log.BeginAddress;
        long tailAtStart = _store.Log.TailAddress;
        long copied = 0;
        double newestLiveFraction = 1;
        var hold = new WriterHold(this);
        try
        {
            for (long sliceStart = beginBefore; sliceStart < untilAddress;)
            {
                // Every slice ends on a page boundary, as the pass does (LogCompactor says why).
                long sliceEnd = Math.Min(untilAddress, (sliceStart + _sliceBytes) & ~_pageSizeMask);
                await hold.EnterAsync().ConfigureAwait(false);
                long sliceCopied = await CopyAsync(sliceEnd).ConfigureAwait(false);
                copied += sliceCopied;
                newestLiveFraction = (double)sliceCopied / (sliceEnd - sliceStart);
                sliceStart = sliceEnd;
                if (sliceStart < untilAddress && _policy.ShouldHoldWriters(_store.Log.TailAddress - _store.Log.BeginAddress))
                {
                    hold.ContinueAsBackPressure();
                    continue;
                }

                hold.Release();
            }
        }
        finally
        {
            hold.Release();
        }

        long beginAfter = _store.Log.BeginAddress;
        var result = new CompactionResult(
            Compacted: true,
            LogBytesBefore: tailAtStart - beginBefore,
            LogBytesAfter: _store.Log.TailAddress - beginAfter,
            DiskBytesFreed: DiskBytesBelow(beginAfter),
            CopiedBytes: copied,
            UncompactedBytes: Math.Max(0, tailAtStart - untilAddress),
            NewestLiveFraction: newestLiveFraction,
            CompactedBytes: untilAddress - beginBefore);
        _statistics.RecordPass(Math.Max(0, beginAfter - beginBefore - copied), result.DiskBytesFreed);
        return result;
    }

    /// <summary>Runs one slice's copy, writers held; returns the bytes it appended (its copies).</summary>
    private async Task<long> CopyAsync(long sliceEnd)
    {
        try
        {
            // FASTER's compaction is synchronous: when the disk fails, its thread waits forever for a page flush that
            // will never come. The pass stops waiting for it, and the write barrier opens (writes are refused by then).
            // The thread and its session stay parked until the process ends.
            return await Task.Run(() =>
            {
                long tailBefore = _store.Log.TailAddress;
                _copyLiveRecordsBelow(sliceEnd);
                return _store.Log.TailAddress - tailBefore;
            }).WaitAsync(_fault.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (_fault.IsFaulted)
        {
            throw _fault.ToException();
        }
    }

    /// <summary>Sums the segment files wholly below <paramref name="beginAddress"/>: those a truncation to it deletes.</summary>
    private long DiskBytesBelow(long beginAddress)
    {
        long firstLiveSegment = beginAddress >> _segmentSizeBits;
        return _layout?.Segments().Where(segment => segment.Number < firstLiveSegment).Sum(segment => segment.Length) ?? 0;
    }

    /// <summary>Writers held out of the barrier from one slice on, timed for <see cref="CompactionStatistics"/>.</summary>
    private sealed class WriterHold(CompactionPass pass)
    {
        private long _since;
        private long _backPressureSince;
        private bool _held;

        public async ValueTask EnterAsync()
        {
            if (_held)
            {
                return;
            }

            await pass._writes.CloseAsync().ConfigureAwait(false);
            _held = true;
            _since = pass._timeProvider.GetTimestamp();
            _backPressureSince = 0;
        }

        public void ContinueAsBackPressure()
        {
            if (_backPressureSince == 0)
            {
                _backPressureSince = pass._timeProvider.GetTimestamp();
            }
        }

        public void Release()
        {
            if (!_held)
            {
                return;
            }

            _held = false;
            pass._writes.Open();
            TimeSpan held = pass._timeProvider.GetElapsedTime(_since);
            TimeSpan backPressure = _backPressureSince == 0 ? TimeSpan.Zero : pass._timeProvider.GetElapsedTime(_backPressureSince);
            pass._statistics.RecordWritersHeld(held, backPressure);
        }
    }
}
