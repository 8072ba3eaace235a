using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Compaction;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>Compaction and checkpoints on demand, and the compactor the store runs.</summary>
internal sealed partial class FasterRecordStore
{
    /// <summary>Compacts the whole read-only part of the log now and deletes the segment files it emptied.</summary>
    public async Task<CompactionResult> CompactAsync(CancellationToken cancellationToken = default)
    {
        using OperationGate.Scope admission = _gate.Enter(this);
        return await Compactor.CompactNowAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Takes a checkpoint of a durable store now; completes when everything written before the call is on disk.</summary>
    /// <exception cref="StoreNotDurableException">The store is not durable.</exception>
    public async Task CheckpointAsync(CancellationToken cancellationToken = default)
    {
        using OperationGate.Scope admission = _gate.Enter(this);
        await _journal.CheckpointAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The store's state now: its fault, if any, and its log, files, live estimate and back-pressure.</summary>
    internal StoreStatus Status() => new(
        _fault.IsFaulted,
        _fault.IsFaulted ? _fault.ToException().Message : null,
        FasterKV.Log.TailAddress - FasterKV.Log.BeginAddress,
        DiskBytes(),
        Compactor.LiveBytesEstimate,
        Compactor.Statistics.BackPressure);

    /// <summary>The segment files the log spans, whole (they are preallocated), and the emptied ones kept for reuse.</summary>
    private long DiskBytes() =>
        ((((FasterKV.Log.TailAddress - 1) >> _segmentSizeBits) - (FasterKV.Log.BeginAddress >> _segmentSizeBits) + 1) << _segmentSizeBits)
        + (_log.Spares?.SpareBytes ?? 0);

    /// <summary>Lets <see cref="Metrics"/> observe the open store: its log and files, compaction, sessions and durable flushes.</summary>
    internal void StartMetrics()
    {
        Metrics.Observe(new StoreGauges(
            LogBytes: () => FasterKV.Log.TailAddress - FasterKV.Log.BeginAddress,
            DiskBytes: DiskBytes,
            LiveBytes: () => Compactor.LiveBytesEstimate,
            Compactions: () => Compactor.Statistics.Passes,
            DiskBytesFreed: () => Compactor.Statistics.DiskBytesFreed,
            BackPressure: () => Compactor.Statistics.BackPressure,
            SessionWaits: () => _sessions.Waits,
            DurableFlushes: () => _journal.DurableFlushes));
    }

    /// <summary>Starts the compaction timer when <see cref="StoreSettings.TimeBetweenLogCompactions"/> is set; the store has opened.</summary>
    internal void StartCompactor(StoreSettings settings)
    {
        if (settings.TimeBetweenLogCompactions is TimeSpan interval)
        {
            Compactor.Start(interval);
        }
    }

    private LogCompactor NewCompactor(StoreSettings settings, TimeProvider timeProvider)
    {
        var budget = new LogDiskBudget(settings.LogDiskBudgetBytes);
        return new(
            FasterKV,
            CopyLiveRecordsAsync,
            _liveBytes.EstimateAsync,
            _journal,
            _writes,
            _fault,
            _log.Layout,
            settings.PageSizeBits,
            settings.SegmentSizeBits,
            new CompactionThresholdPolicy(settings.InitialLogCompactionThresholdBytes, budget, settings.CompactionLogToLiveRatio),
            budget,
            timeProvider,
            _logger);
    }

    /// <summary>
    /// Copies the live records of [<paramref name="fromAddress"/>, <paramref name="untilAddress"/>) to the log's tail
    /// (<see cref="Compaction.CopyLiveRecords"/>): beside the writers (<see cref="LiveRecordCopier"/>), or, when
    /// back-pressure holds every writer out, by FASTER's own lookup compaction, which copies about three times faster
    /// (docs/benchmarks.md) but races writers on the hash entry (<see cref="KeyStripeLocks"/>), so it runs only then.
    /// <c>passUntilAddress</c> is where the range's pass ends, or 0 when the range is a pass of its own.
    /// </summary>
    internal Task<long> CopyLiveRecordsAsync(long fromAddress, long untilAddress, bool writersHeld, SlicePace? pace = null, long passUntilAddress = 0)
    {
        if (!writersHeld)
        {
            return _copier.CopyAsync(fromAddress, untilAddress, pace ?? SlicePace.Hurried(), passUntilAddress);
        }

        // FASTER's compaction moves the begin address, and may delete segment files, past where the copier's scan stopped
        // (and its next page's load was issued): that scan closes first, waiting for its loads.
        _copier.CloseScan();
        return CompactWithWritersHeldAsync(untilAddress);
    }

    /// <summary>Gets how many scans of the log compaction's copies have opened (<see cref="SliceScan"/>); for tests.</summary>
    internal int CompactionScansOpened => _copier.ScansOpened;

    /// <summary>Gets how many sessions compaction's copies have opened; for tests.</summary>
    internal int CompactionSessionsOpened => _copier.SessionsOpened;

    /// <summary>Estimates the log's live bytes now, and samples how live a stretch of it is.</summary>
    internal LiveBytesEstimator LiveBytes => _liveBytes;

    /// <summary>FASTER's lookup compaction up to <paramref name="untilAddress"/>, a page boundary; returns the bytes it appended, all copies since no writer runs.</summary>
    private Task<long> CompactWithWritersHeldAsync(long untilAddress) =>
        // FASTER's compaction is synchronous: when the disk fails, its thread waits forever for a page flush that will
        // never come. Stop waiting for it (writes are refused by then); the thread and its session stay parked.
        _fault.WaitUnlessFaultedAsync(Task.Run(() =>
        {
            long tailBefore = FasterKV.Log.TailAddress;
            using StoreSession session = NewSession();
            if (_dropRule.DropsAny)
            {
                session.Compact(untilAddress, CompactionType.Lookup, _dropRule.ForFaster());
            }
            else
            {
                session.Compact(untilAddress, CompactionType.Lookup);
            }

            return FasterKV.Log.TailAddress - tailBefore;
        }));
}
