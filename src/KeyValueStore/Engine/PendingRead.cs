using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Finishes a read <see cref="PinnedRecord.TryRead"/> left pending on the disk. The session runs nothing else
/// meanwhile, so the one output it completes is that read's.
/// </summary>
internal static class PendingRead
{
    public static async ValueTask<(Status Status, PooledBuffer Output)> CompleteAsync(StoreSession session)
    {
        using var completed = await session.CompletePendingWithOutputsAsync().ConfigureAwait(false);
        return OnlyOutput(completed);
    }

    /// <summary><see cref="CompleteAsync"/>, blocking the calling thread.</summary>
    public static (Status Status, PooledBuffer Output) Complete(StoreSession session)
    {
        session.CompletePendingWithOutputs(out var completed, wait: true);
        using (completed)
        {
            return OnlyOutput(completed);
        }
    }

    private static (Status Status, PooledBuffer Output) OnlyOutput(CompletedOutputIterator<SpanByte, SpanByte, SpanByte, PooledBuffer, Empty> completed)
    {
        (Status status, PooledBuffer output) = (default, default);
        while (completed.Next())
        {
            (status, output) = (completed.Current.Status, completed.Current.Output);
        }

        return (status, output);
    }
}
