using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Storage;

/// <summary>
/// Wraps the log device so that disposing it never overlaps a truncation. Everything else is passed
/// through unchanged.
/// </summary>
/// <remarks>
/// Why: FASTER runs log truncation on a background task (<c>Task.Run(() =&gt; device.TruncateUntilAddress(..))</c>)
/// that nothing can await. In FASTER 2.6.5, <c>ManagedLocalStorageDevice.RemoveSegment</c> (called by
/// truncation) and <c>ManagedLocalStorageDevice.Dispose</c> both dispose the segment's handle pool,
/// and two concurrent disposals of one pool can leave one waiting forever for a handle the other
/// took (a store closed right after a compaction hangs so). Here truncations pass an
/// <see cref="OperationGate"/>. <see cref="StopTruncations"/> closes the gate and waits for those in
/// flight; the store calls it before disposing its <c>FasterKV</c>, because a truncation runs inside
/// the store's epoch, and one waited for after the epoch is gone spins on freed memory. Truncations that arrive
/// after the gate closed are dropped: the store is closing, and its segments are deleted on close
/// anyway when <c>DeleteLogOnClose</c> is set.
/// <para>
/// In a durable store a truncation also waits for the checkpoint commits started before it (<paramref name="commits"/>),
/// and is dropped when the latest of them failed. FASTER truncates the log below a checkpoint's begin address as soon as
/// it has handed that checkpoint's metadata to its manager, and the metadata is now written later, off FASTER's epoch
/// (<see cref="CheckpointCommits"/>): truncating at once deleted segments that the previous checkpoint, still the
/// latest one on disk, needed, and a crash in between left a store that would not open.
/// </para>
/// </remarks>
internal sealed class TruncationSafeDevice(IDevice inner, CheckpointCommits? commits = null) : DelegatingDevice(inner)
{
    private readonly OperationGate _truncations = new();
    private int _disposed;

    public override void TruncateUntilAddress(long toAddress) => Truncate(() => Inner.TruncateUntilAddress(toAddress));

    public override void TruncateUntilSegment(int toSegment) => Truncate(() => Inner.TruncateUntilSegment(toSegment));

    public override void RemoveSegment(int segment) => Truncate(() => Inner.RemoveSegment(segment));

    public override void TruncateUntilAddressAsync(long toAddress, AsyncCallback callback, IAsyncResult result) =>
        TruncateAsync(wrapped => Inner.TruncateUntilAddressAsync(toAddress, wrapped, result), callback, result);

    public override void TruncateUntilSegmentAsync(int toSegment, AsyncCallback callback, IAsyncResult result) =>
        TruncateAsync(wrapped => Inner.TruncateUntilSegmentAsync(toSegment, wrapped, result), callback, result);

    public override void RemoveSegmentAsync(int segment, AsyncCallback callback, IAsyncResult result) =>
        TruncateAsync(wrapped => Inner.RemoveSegmentAsync(segment, wrapped, result), callback, result);

    /// <summary>
    /// Drops truncations from now on and waits for those in flight. Call while the <c>FasterKV</c> the
    /// device belongs to is still alive: truncations in flight need its epoch to finish. Idempotent.
    /// </summary>
    public void StopTruncations()
    {
        _truncations.Close();
        _truncations.WhenDrained.GetAwaiter().GetResult();
    }

    /// <summary>Stops truncations (see <see cref="StopTruncations"/>), then disposes the inner device. Idempotent.</summary>
    public override void Dispose()
    {
        StopTruncations();
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            Inner.Dispose();
        }
    }

    private void Truncate(Action truncate)
    {
        if (AfterCommits(() => Truncate(truncate), dropped: () => { }))
        {
            return;
        }

        if (!_truncations.TryEnter(out OperationGate.Admission admission))
        {
            return;
        }

        try
        {
            truncate();
        }
        finally
        {
            _truncations.Exit(admission);
        }
    }

    private void TruncateAsync(Action<AsyncCallback> start, AsyncCallback callback, IAsyncResult result)
    {
        if (AfterCommits(() => TruncateAsync(start, callback, result), dropped: () => callback(result)))
        {
            return;
        }

        if (!_truncations.TryEnter(out OperationGate.Admission admission))
        {
            callback(result);
            return;
        }

        try
        {
            start(completed =>
            {
                try
                {
                    callback(completed);
                }
                finally
                {
                    _truncations.Exit(admission);
                }
            });
        }
        catch
        {
            _truncations.Exit(admission);
            throw;
        }
    }

    /// <summary>
    /// When a checkpoint commit is still being written, runs <paramref name="truncation"/> once it has been (or
    /// <paramref name="dropped"/> when it failed: the checkpoint before it is still the latest) and returns true;
    /// returns false when there is nothing to wait for.
    /// </summary>
    private bool AfterCommits(Action truncation, Action dropped)
    {
        Task pending = commits?.WhenCompleteAsync() ?? Task.CompletedTask;
        if (pending.IsCompletedSuccessfully)
        {
            return false;
        }

        pending.ContinueWith(
            written => (written.IsCompletedSuccessfully ? truncation : dropped)(),
            CancellationToken.None,
            TaskContinuationOptions.None,
            TaskScheduler.Default);
        return true;
    }
}
