using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

public class EpochNudgerTests
{
    private static EpochNudger NewNudger(FasterRecordStore store, TimeProvider clock)
    {
        var functions = new RecordFunctions();
        return new EpochNudger(store.FasterKV.For(functions).NewSession<RecordFunctions>(functions), clock);
    }

    [Fact]
    public async Task WhilePending_TheEpochIsRefreshedEachInterval_AndOnceNothingIsPending_WatchingStops()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        var clock = new ManualTimeProvider();
        using var nudger = NewNudger(store, clock);
        var operation = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);

        ValueTask<int> waiting = nudger.WaitAsync(new ValueTask<int>(operation.Task));

        // The watch loop handles one tick at a time, so the clock is moved an interval per poll until
        // three nudges have happened.
        int intervalsElapsed = 0;
        await Eventually.TrueAsync(
            () =>
            {
                clock.Advance(EpochNudger.Interval);
                intervalsElapsed++;
                return nudger.NudgeCount >= 3;
            },
            () => $"expected 3 nudges, saw {nudger.NudgeCount}");
        operation.SetResult(42);

        Assert.Equal(42, await waiting);
        Assert.InRange(nudger.NudgeCount, 3, intervalsElapsed);

        // Nothing pending any more: the loop ends at its next tick and refreshes nothing after that.
        await Eventually.TrueAsync(
            () =>
            {
                clock.Advance(EpochNudger.Interval);
                return !nudger.IsWatching;
            },
            () => "the watch loop kept running with nothing pending");
        long nudgesWhenStopped = nudger.NudgeCount;
        for (int i = 0; i < 5; i++)
        {
            clock.Advance(EpochNudger.Interval);
        }

        Assert.Equal(nudgesWhenStopped, nudger.NudgeCount);
    }

    [Fact]
    public async Task AnOperationThatCompletedSynchronously_IsNeverNudged()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        var clock = new ManualTimeProvider();
        using var nudger = NewNudger(store, clock);

        int result = await nudger.WaitAsync(new ValueTask<int>(7));
        clock.Advance(TimeSpan.FromSeconds(1));

        Assert.Equal(7, result);
        Assert.False(nudger.IsWatching);
        Assert.Equal(0, nudger.NudgeCount);
    }
}
