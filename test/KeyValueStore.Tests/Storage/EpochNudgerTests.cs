using System;
using System.Reflection;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

public class EpochNudgerTests
{
    private static EpochNudger NewNudger(FasterRecordStore store, TimeProvider clock) => new(NewSession(store), clock);

    private static ClientSession<SpanByte, SpanByte, SpanByte, PooledBuffer, Empty, RecordFunctions> NewSession(FasterRecordStore store)
    {
        var functions = new RecordFunctions();
        return store.FasterKV.For(functions).NewSession<RecordFunctions>(functions);
    }

    /// <summary>
    /// What the nudger is for. An upsert that needs a new page waits for the flush of an old one, and FASTER starts that
    /// flush as an epoch action, run by whichever thread next enters the epoch once every thread protected when it was
    /// registered has moved on. Here one thread is protected while the upsert registers it, then leaves without draining,
    /// as LightEpoch.Suspend can when its store-load race strikes. The writer is suspended too, so no thread would ever
    /// run the flush: only the nudger's refresh, driven by the injected clock, can complete the upsert.
    /// </summary>
    [Fact]
    public async Task AnUpsertWaitingForAFlushNoThreadWillStart_CompletesThroughTheNudgersRefresh()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        var clock = new ManualTimeProvider();
        using var nudger = NewNudger(store, clock);
        using var writer = NewSession(store);
        var value = new byte[100];
        ValueTask<FasterKV<SpanByte, SpanByte>.UpsertAsyncResult<SpanByte, PooledBuffer, Empty>> waiting = default;
        int key;
        using (var holder = new EpochHolder(store.FasterKV))
        {
            // Two 4 KB pages of memory: once they are full, a write needs a page whose flush the holder keeps back.
            for (key = 0; key < 1_000; key++)
            {
                waiting = PinnedRecord.UpsertAsync(writer, BitConverter.GetBytes(key), value);
                if (!waiting.IsCompleted)
                {
                    break;
                }

                Assert.False((await waiting).Status.IsPending, $"upsert {key} completed as pending");
            }

            Assert.False(waiting.IsCompleted, "no upsert had to wait for a flush, so the nudger was not needed");
            holder.LeaveWithoutDraining();
        }

        Task<FasterKV<SpanByte, SpanByte>.UpsertAsyncResult<SpanByte, PooledBuffer, Empty>> completion = nudger.WaitAsync(waiting).AsTask();
        await Eventually.TrueAsync(
            () =>
            {
                clock.Advance(EpochNudger.Interval);
                return completion.IsCompleted;
            },
            () => $"the upsert still waits for its flush after {nudger.NudgeCount} nudges");
        var result = await completion;
        while (result.Status.IsPending)
        {
            result = await nudger.WaitAsync(result.CompleteAsync());
        }

        Assert.True(nudger.NudgeCount > 0, "the upsert completed without a nudge");
        (bool found, PooledBuffer read) = await store.ReadAsync(BitConverter.GetBytes(key));
        Assert.True(found, $"the upsert of key {key} completed, but the key is not there");
        Assert.Equal(value, read.Span.ToArray());
        read.Return();
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

    /// <summary>
    /// A dedicated thread inside a store's epoch, from construction until <see cref="LeaveWithoutDraining"/>, which
    /// clears its epoch entry the way the first half of LightEpoch.Suspend does and skips the drain of the second half.
    /// Both members are internal to FASTER 2.6.5 (FasterBase.epoch and LightEpoch.Release), so reflection reaches them.
    /// </summary>
    private sealed class EpochHolder : IDisposable
    {
        private static readonly FieldInfo EpochField =
            typeof(FasterBase).GetField("epoch", BindingFlags.NonPublic | BindingFlags.Instance) ?? throw new MissingFieldException(nameof(FasterBase), "epoch");

        private static readonly MethodInfo ReleaseMethod =
            typeof(LightEpoch).GetMethod("Release", BindingFlags.NonPublic | BindingFlags.Instance) ?? throw new MissingMethodException(nameof(LightEpoch), "Release");

        private readonly ManualResetEventSlim _inside = new();
        private readonly ManualResetEventSlim _leave = new();
        private readonly Thread _thread;

        public EpochHolder(FasterBase store)
        {
            var epoch = (LightEpoch)EpochField.GetValue(store)!;
            _thread = new Thread(() =>
            {
                epoch.Resume();
                _inside.Set();
                _leave.Wait();
                ReleaseMethod.Invoke(epoch, null);
            })
            {
                IsBackground = true,
                Name = "epoch holder",
            };
            _thread.Start();
            _inside.Wait();
        }

        public void LeaveWithoutDraining()
        {
            _leave.Set();
            _thread.Join();
        }

        public void Dispose()
        {
            if (_thread.IsAlive)
            {
                LeaveWithoutDraining();
            }

            _inside.Dispose();
            _leave.Dispose();
        }
    }
}
