using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Compaction;
using KeyValueStore.Concurrency;
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

    /// <summary>Starts the compaction timer when <see cref="StoreSettings.TimeBetweenLogCompactions"/> is set; the store has opened.</summary>
    internal void StartCompactor(StoreSettings settings)
    {
        if (settings.TimeBetweenLogCompactions is TimeSpan interval)
        {
            Compactor.Start(interval);
        }
    }

    private LogCompactor NewCompactor(StoreSettings settings, TimeProvider timeProvider) =>
        new(
            FasterKV,
            CopyLiveRecordsAsync,
            _liveBytes.EstimateAsync,
            _journal,
            _writes,
            _fault,
            _log.Layout,
            settings.PageSizeBits,
            settings.SegmentSizeBits,
            new CompactionThresholdPolicy(settings.InitialLogCompactionThresholdBytes),
            timeProvider,
            _logger);

    /// <summary>
    /// Copies the live records of [<paramref name="fromAddress"/>, <paramref name="untilAddress"/>) to the log's tail
    /// (<see cref="Compaction.CopyLiveRecords"/>) with <see cref="LiveRecordCopier"/>, whether back-pressure holds the
    /// writers or not. FASTER's own lookup compaction copies about three times faster with the writers held, and was
    /// used then, but under load it threw a <c>NullReferenceException</c> from inside FASTER 2.6.5 while it completed its
    /// pending disk reads (<c>TryCopyToTail</c>), in the middle of a compaction (docs/benchmarks.md says what it cost).
    /// </summary>
    internal Task<long> CopyLiveRecordsAsync(long fromAddress, long untilAddress) => _copier.CopyAsync(fromAddress, untilAddress);

    /// <summary>Estimates the log's live bytes now, and samples how live a stretch of it is.</summary>
    internal LiveBytesEstimator LiveBytes => _liveBytes;
}
