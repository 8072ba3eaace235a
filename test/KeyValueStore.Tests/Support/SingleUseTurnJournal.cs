using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using System.Threading.Tasks.Sources;
using KeyValueStore.Diagnostics;
using KeyValueStore.Concurrency;
using KeyValueStore.Durability;
using KeyValueStore.Storage;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// A store's own journal whose write turns come back the way a pooled async method's do when it completed before its
/// caller looked: completed, and good for one read of the result, after which the box is reused and any further look
/// throws. <see cref="AfterBegin"/> runs once a turn has begun, before the engine sees it.
/// </summary>
internal sealed class SingleUseTurnJournal(IWriteJournal inner) : IWriteJournal
{
    /// <summary>Gets or sets what runs after each turn begins, before it is handed back.</summary>
    public Action? AfterBegin { get; set; }

    public long? DurableFlushes => inner.DurableFlushes;

    public BackgroundWork? Checkpoints => inner.Checkpoints;

    public bool ReleasesEachEmptiedSegment => inner.ReleasesEachEmptiedSegment;

    public Task ReleaseCompactedLogAsync(CancellationToken cancellationToken) => inner.ReleaseCompactedLogAsync(cancellationToken);

    public Task RecoverAsync(Func<IReadOnlyList<BatchWrite>, ValueTask> apply) => inner.RecoverAsync(apply);

    public void Start() => inner.Start();

    public ValueTask<WriteTurn> BeginWriteAsync(KeyStripeLocks.Scope held, int stripe, ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, bool isDelete, CancellationToken cancellationToken)
    {
        WriteTurn turn = inner.BeginWriteAsync(held, stripe, key, value, isDelete, cancellationToken).AsTask().GetAwaiter().GetResult();
        AfterBegin?.Invoke();
        return SingleUse<WriteTurn>.Of(turn);
    }

    public ValueTask<WriteTurn> BeginBatchAsync(KeyStripeLocks.ManyScope held, int[] stripes, IReadOnlyList<BatchWrite> writes, CancellationToken cancellationToken) =>
        inner.BeginBatchAsync(held, stripes, writes, cancellationToken);

    public void EndWrite(in WriteTurn turn, bool applied, bool changedRecords) => inner.EndWrite(turn, applied, changedRecords);

    public ValueTask WaitUntilAppliedAsync(int[] stripes) => inner.WaitUntilAppliedAsync(stripes);

    public Task CheckpointAsync(CancellationToken cancellationToken) => inner.CheckpointAsync(cancellationToken);

    public Task<T> RunBetweenCheckpointsAsync<T>(Func<Task<T>> work) => inner.RunBetweenCheckpointsAsync(work);

    public Task CloseAsync() => inner.CloseAsync();

    public ValueTask DisposeAsync() => inner.DisposeAsync();

    /// <summary>A completed result that may be read once, as a pooled async method's box may.</summary>
    private sealed class SingleUse<T> : IValueTaskSource<T>
    {
        private ManualResetValueTaskSourceCore<T> _core;

        public static ValueTask<T> Of(T result)
        {
            var source = new SingleUse<T>();
            source._core.SetResult(result);
            return new ValueTask<T>(source, source._core.Version);
        }

        public T GetResult(short token)
        {
            T result = _core.GetResult(token);
            _core.Reset();
            return result;
        }

        public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

        public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
            _core.OnCompleted(continuation, state, token, flags);
    }
}
