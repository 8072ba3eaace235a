using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>Applying recovered writes while the store opens, and disposal: drain, the journal's last word, release.</summary>
internal sealed partial class FasterRecordStore
{
    /// <summary>Applies one recovered transaction in order, through the same path as a live batch; the store is still opening.</summary>
    internal async ValueTask ApplyRecoveredAsync(IReadOnlyList<BatchWrite> writes)
    {
        using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(CancellationToken.None).ConfigureAwait(false);
        for (int i = 0; i < writes.Count; i++)
        {
            await ApplyInSessionAsync(lease.Session, writes[i]).ConfigureAwait(false);
        }
    }

    public void Dispose() => DisposeAsync().AsTask().GetAwaiter().GetResult();

    /// <summary>
    /// Stops admitting operations, stops the compactor (waiting for a compaction in progress), waits for the admitted
    /// operations, lets the journal make everything durable, then releases sessions, the journal, FASTER and the device
    /// (which deletes the segment files when asked). Idempotent: every caller awaits the same disposal.
    /// </summary>
    public ValueTask DisposeAsync()
    {
        if (_gate.Close())
        {
            _ = ReleaseAfterDrainAsync();
        }

        return new ValueTask(_disposed.Task);
    }

    private async Task ReleaseAfterDrainAsync()
    {
        try
        {
            try
            {
                await Compactor.DisposeAsync().ConfigureAwait(false);
                await _gate.WhenDrained.ConfigureAwait(false);

                // After the drain, so that the journal's last checkpoint holds every write.
                await _journal.CloseAsync().ConfigureAwait(false);
            }
            finally
            {
                // Also when the last checkpoint failed: the files are then released, to be recovered from the previous one.
                await ReleaseAsync().ConfigureAwait(false);
            }

            StoreEvents.StoreClosed(_logger, _log.Device is null ? "left to the caller" : _deleteLogOnClose ? "deleted" : "kept");
            _disposed.SetResult();
        }
        catch (Exception e)
        {
            _disposed.SetException(e);
        }
    }

    /// <summary>
    /// Releases the sessions, the journal, FASTER and the files without making anything durable: after the journal
    /// closed, or for an open that failed before any caller saw the store.
    /// </summary>
    internal async ValueTask ReleaseAsync()
    {
        try
        {
            // A scan a stopped pass left open (the compactor has stopped by now), before FASTER and its files go.
            _copier.Dispose();
            _sessions.Dispose();
            _epochNudger.Dispose();
            await _journal.DisposeAsync().ConfigureAwait(false);
        }
        finally
        {
            Metrics.Dispose();
            _log.Release(_deleteLogOnClose);
        }
    }
}
