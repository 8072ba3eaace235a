using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Running;
using Microsoft.Extensions.Time.Testing;

namespace KeyValueStore.LoadTest.Tests.Running;

/// <summary>--rate's schedule on a clock the test moves: start times fall due at the rate, in order, each taken once, late by what the clock says.</summary>
public class MetronomeTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task StartTimes_FallDueAtTheRate_AndEachTurnReportsHowLateItIsTaken()
    {
        var clock = new FakeTimeProvider();
        using var stop = new CancellationTokenSource();
        using var metronome = Metronome.Start(clock, operationsPerSecond: 1000, stop.Token);

        clock.Advance(TimeSpan.FromMilliseconds(10));

        // Due by now: the start times at 0, 1, ..., 10 ms; taken at 10 ms, each is late by 10 ms less its own.
        for (int start = 0; start <= 10; start++)
        {
            long lag = await metronome.WaitForTurnAsync().AsTask().WaitAsync(Patience);
            Assert.Equal(TimeSpan.FromMilliseconds(10 - start), clock.GetElapsedTime(0, lag));
        }

        ValueTask<long> early = metronome.WaitForTurnAsync();
        await Task.Delay(50);
        Assert.False(early.IsCompleted, "a start time was handed out before it fell due");

        clock.Advance(TimeSpan.FromMilliseconds(1));
        Assert.Equal(0, await early.AsTask().WaitAsync(Patience));
        await stop.CancelAsync();
    }

    [Fact]
    public async Task AWorkerWaitingForItsTurn_ReturnsWhenThePhaseStops()
    {
        var clock = new FakeTimeProvider();
        using var stop = new CancellationTokenSource();
        using var metronome = Metronome.Start(clock, operationsPerSecond: 1000, stop.Token);
        await metronome.WaitForTurnAsync().AsTask().WaitAsync(Patience); // The start time at 0.

        ValueTask<long> waiting = metronome.WaitForTurnAsync();
        await stop.CancelAsync();

        Assert.Equal(0, await waiting.AsTask().WaitAsync(Patience));
    }
}
