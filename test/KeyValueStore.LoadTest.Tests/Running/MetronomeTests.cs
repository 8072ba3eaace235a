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

    [Fact]
    public async Task StartTimes_DueBeforeTheThreadFirstRuns_AreNotLost()
    {
        var clock = new FakeTimeProvider();
        using var lateThread = new LateStartingThreadClock(clock);
        using var stop = new CancellationTokenSource();
        using var metronome = Metronome.Start(lateThread, operationsPerSecond: 1000, stop.Token);

        // The schedule started at 0; its thread (on a busy machine) first runs 10 ms later, when 11 start times are due.
        clock.Advance(TimeSpan.FromMilliseconds(10));
        lateThread.LetTheThreadRun();

        for (int start = 0; start <= 10; start++)
        {
            long lag = await metronome.WaitForTurnAsync().AsTask().WaitAsync(Patience);
            Assert.Equal(TimeSpan.FromMilliseconds(10 - start), clock.GetElapsedTime(0, lag));
        }
    }

    [Fact]
    public async Task Dispose_StopsTheSchedule_EvenWhenThePhasesTokenWasNotCancelled()
    {
        using var stop = new CancellationTokenSource();
        var metronome = Metronome.Start(new FakeTimeProvider(), operationsPerSecond: 1000, stop.Token);

        // A test or phase that fails before cancelling its token still disposes the schedule: that must return.
        await Task.Run(metronome.Dispose).WaitAsync(Patience);
        Assert.False(stop.IsCancellationRequested, "the schedule cancelled the phase's token, which is not its own");
    }

    /// <summary>A clock whose readings on the metronome's thread wait until the test lets that thread run: a thread started late.</summary>
    private sealed class LateStartingThreadClock(FakeTimeProvider clock) : TimeProvider, IDisposable
    {
        private readonly ManualResetEventSlim _threadMayRun = new();

        public override long TimestampFrequency => clock.TimestampFrequency;

        public override long GetTimestamp()
        {
            if (Thread.CurrentThread.Name == Metronome.ThreadName)
            {
                _threadMayRun.Wait();
            }

            return clock.GetTimestamp();
        }

        public void LetTheThreadRun() => _threadMayRun.Set();

        public void Dispose() => _threadMayRun.Dispose();
    }
}
