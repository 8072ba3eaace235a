using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Tests.Concurrency;

/// <summary>Writers waiting for a key's stripe can give up without holding or leaking it.</summary>
public class KeyStripeCancellationTests
{
    [Fact]
    public async Task AWriterCancelledWhileAnotherHoldsTheStripe_Throws_AndTheStripeIsFreeOnceReleased()
    {
        var stripes = new KeyStripeLocks(indexBuckets: 16);
        int stripe = stripes.StripeOf([1, 2, 3]);
        KeyStripeLocks.Scope held = await stripes.EnterAsync(stripe);
        using var cancellation = new CancellationTokenSource();
        ValueTask<KeyStripeLocks.Scope> waiting = stripes.EnterAsync(stripe, cancellation.Token);
        Assert.False(waiting.IsCompleted);

        cancellation.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await waiting);
        held.Dispose();

        ValueTask<KeyStripeLocks.Scope> next = stripes.EnterAsync(stripe);
        Assert.True(next.IsCompleted, "the cancelled writer took nothing");
        (await next).Dispose();
    }

    /// <summary>As with SemaphoreSlim before the stripes counted with AsyncPermits: a batch already cancelled takes no stripe.</summary>
    [Fact]
    public async Task ABatchWhoseTokenIsAlreadyCancelled_TakesNoStripe_EvenWithAllFree()
    {
        var stripes = new KeyStripeLocks(indexBuckets: 16);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await stripes.EnterManyAsync([0, 1], new CancellationToken(canceled: true)));

        ValueTask<KeyStripeLocks.ManyScope> both = stripes.EnterManyAsync([0, 1]);
        Assert.True(both.IsCompleted, "the cancelled batch kept a stripe");
        (await both).Dispose();
    }

    [Fact]
    public async Task ABatchCancelledWhileWaitingForItsSecondStripe_GivesBackTheFirst()
    {
        var stripes = new KeyStripeLocks(indexBuckets: 16);
        int[] both = [0, 1];
        KeyStripeLocks.Scope second = await stripes.EnterAsync(1);
        using var cancellation = new CancellationTokenSource();
        ValueTask<KeyStripeLocks.ManyScope> waiting = stripes.EnterManyAsync(both, cancellation.Token);
        Assert.False(waiting.IsCompleted);

        cancellation.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await waiting);

        ValueTask<KeyStripeLocks.Scope> first = stripes.EnterAsync(0);
        Assert.True(first.IsCompleted, "the cancelled batch gave back the stripe it held");
        (await first).Dispose();
        second.Dispose();
    }
}
