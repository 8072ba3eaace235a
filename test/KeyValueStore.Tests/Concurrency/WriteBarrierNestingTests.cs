using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Tests.Concurrency;

/// <summary>A checkpoint and compaction's back-pressure may hold the barrier at once: closes nest, and each is timed.</summary>
public class WriteBarrierNestingTests
{
    [Fact]
    public async Task TwoClosers_TheBarrierOpensOnlyWhenBothHaveOpened()
    {
        var barrier = new WriteBarrier();
        await barrier.CloseAsync();
        await barrier.CloseAsync().WaitAsync(TimeSpan.FromSeconds(30));
        ValueTask waiting = barrier.EnterWriteAsync(CancellationToken.None);

        barrier.Open();
        Assert.False(waiting.IsCompleted, "the writer got in while the second closer still held the barrier");

        barrier.Open();
        await waiting.AsTask().WaitAsync(TimeSpan.FromSeconds(30));
        barrier.ExitWrite();
    }

    [Fact]
    public async Task ASecondCloser_WaitsForTheWritesInFlightBeforeTheFirstClose()
    {
        var barrier = new WriteBarrier();
        await barrier.EnterWriteAsync(CancellationToken.None);
        Task first = barrier.CloseAsync();
        Task second = barrier.CloseAsync();

        Assert.False(first.IsCompleted);
        Assert.False(second.IsCompleted, "the second closer did not wait for the write in flight");
        barrier.ExitWrite();
        await Task.WhenAll(first, second).WaitAsync(TimeSpan.FromSeconds(30));
        barrier.Open();
        barrier.Open();
    }

    [Fact]
    public void OpeningMoreTimesThanClosed_Throws()
    {
        var barrier = new WriteBarrier();

        InvalidOperationException error = Assert.Throws<InvalidOperationException>(barrier.Open);
        Assert.Contains("opened more times than it was closed", error.Message);
    }

    [Fact]
    public async Task TheTimeClosed_CountsEachStretchFromTheFirstCloseToTheLastOpen()
    {
        var barrier = new WriteBarrier();
        await barrier.CloseAsync();
        await barrier.CloseAsync();
        await Task.Delay(50);
        barrier.Open();
        Assert.Equal(TimeSpan.Zero, barrier.TimeClosed);

        barrier.Open();
        TimeSpan first = barrier.TimeClosed;
        Assert.True(first >= TimeSpan.FromMilliseconds(40), $"{first}");
        Assert.Equal(first, barrier.LongestClosed);

        await barrier.CloseAsync();
        barrier.Open();
        Assert.True(barrier.TimeClosed >= first);
        Assert.Equal(first, barrier.LongestClosed);
    }
}
