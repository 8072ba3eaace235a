using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Tests.Concurrency;

/// <summary>A writer waiting at a closed barrier can give up, and leaves the barrier as if it had never come.</summary>
public class WriteBarrierCancellationTests
{
    [Fact]
    public async Task AWriterCancelledWhileTheBarrierIsClosed_Throws_AndTheNextCloseDoesNotWaitForIt()
    {
        var barrier = new WriteBarrier();
        await barrier.CloseAsync();
        using var cancellation = new CancellationTokenSource();
        ValueTask waiting = barrier.EnterWriteAsync(cancellation.Token);
        Assert.False(waiting.IsCompleted);

        cancellation.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await waiting);
        barrier.Open();

        // Open counted the cancelled writer in; it must have counted itself out, or this close would wait forever.
        await barrier.CloseAsync().WaitAsync(TimeSpan.FromSeconds(30));
        barrier.Open();
        await barrier.EnterWriteAsync(CancellationToken.None);
        barrier.ExitWrite();
    }

    [Fact]
    public async Task AWriterWhoseTokenIsNeverCancelled_IsAdmittedWhenTheBarrierOpens()
    {
        var barrier = new WriteBarrier();
        await barrier.CloseAsync();
        using var cancellation = new CancellationTokenSource();
        ValueTask waiting = barrier.EnterWriteAsync(cancellation.Token);

        barrier.Open();
        await waiting;
        Task closing = barrier.CloseAsync();

        Assert.False(closing.IsCompleted, "the admitted writer holds the next close back until it exits");
        barrier.ExitWrite();
        await closing.WaitAsync(TimeSpan.FromSeconds(30));
    }
}
