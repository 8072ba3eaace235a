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
    /// (<see cref="Compaction.CopyLiveRecords"/>) with <see cref="LiveRecordCopier"/>, beside the writers or with
    /// back-pressure holding them out.
    /// </summary>
    /// <remarks>
    /// Not FASTER 2.6.5's own lookup compaction, even with every writer held, though it copies faster: with a few pages
    /// of memory it wrote records whose key length it had zeroed (a key read as empty, an old value under it), deletes
    /// then missed keys that were live and found them again later, and it threw <c>NullReferenceException</c> from
    /// <c>TryCopyToTail</c> (docs/architecture.md, "FASTER defects worked around").
    /// </remarks>
    internal Task<long> CopyLiveRecordsAsync(long fromAddress, long untilAddress, bool writersHeld) =>
        _copier.CopyAsync(fromAddress, untilAddress, writersHeld);

    /// <summary>Estimates the log's live bytes now, and samples how live a stretch of it is.</summary>
    internal LiveBytesEstimator LiveBytes => _liveBytes;
}
