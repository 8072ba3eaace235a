using System;
using System.Threading;
using System.Threading.Tasks;
using System.Threading.Tasks.Sources;
using KeyValueStore.Concurrency;
using KeyValueStore.Durability;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// A store's own journal whose write turns come back the way a pooled async method's do when it completed before its
/// caller looked: completed, and good for one read of the result, after which the box is reused and any further look
/// throws. <see cref="AfterBegin"/> runs once a turn has begun, before the engine sees it.
/// </summary>
internal sealed class SingleUseTurnJournal(IWriteJournal inner) : PassThroughJournal(inner)
{
    /// <summary>Gets or sets what runs after each turn begins, before it is handed back.</summary>
    public Action? AfterBegin { get; set; }

    public override ValueTask<WriteTurn> BeginWriteAsync(KeyStripeLocks.Scope held, int stripe, ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, bool isDelete, CancellationToken cancellationToken)
    {
        WriteTurn turn = Inner.BeginWriteAsync(held, stripe, key, value, isDelete, cancellationToken).AsTask().GetAwaiter().GetResult();
        AfterBegin?.Invoke();
        return SingleUse<WriteTurn>.Of(turn);
    }

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
