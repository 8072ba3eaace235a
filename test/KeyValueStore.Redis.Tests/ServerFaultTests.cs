using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Redis.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Redis.Tests;

/// <summary>A server that goes away mid-workload: typed errors, never a hang, and the store works again once the server is back.</summary>
public sealed class ServerFaultTests
{
    [Fact]
    public async Task TheServerStoppingMidWorkload_GivesTypedErrors_NotHangs_AndOperationsResumeOnceItIsBack()
    {
        using var garnet = new GarnetProcess();
        var options = new RedisKVStoreOptions { Configuration = garnet.Configuration, ReadRetries = 0 };
        await using RedisKVStore<int, int> store = await RedisKVStore<int, int>.ConnectAsync(options);
        var failures = new ConcurrentQueue<Exception>();
        int acknowledged = 0;
        using var stop = new CancellationTokenSource();
        Task[] workers = Enumerable.Range(0, 4).Select(worker => Task.Run(async () =>
        {
            for (int i = 0; !stop.IsCancellationRequested; i++)
            {
                try
                {
                    int key = (worker * 1_000_000) + i;
                    await store.UpsertAsync(key, i);
                    Assert.Equal(i, (await store.ReadAsync(key)).Value);
                    Interlocked.Increment(ref acknowledged);
                }
                catch (Exception e) when (e is not Xunit.Sdk.XunitException)
                {
                    failures.Enqueue(e);
                    await Task.Delay(50);
                }
            }
        })).ToArray();

        await Eventually.TrueAsync(() => Volatile.Read(ref acknowledged) > 100, () => "waited too long for the workload to get going");
        garnet.Stop();
        await Eventually.TrueAsync(() => failures.Count >= 8, () => "waited too long for operations to fail while the server is down");
        garnet.Start();
        int failedWhileDown = failures.Count;
        int acknowledgedWhileDown = Volatile.Read(ref acknowledged);
        await Eventually.TrueAsync(() => Volatile.Read(ref acknowledged) > acknowledgedWhileDown + 100, () => "waited too long for operations to succeed again once the server is back");
        await stop.CancelAsync();

        // A hung operation would keep its worker from seeing the stop: the whole workload must end within the timeouts.
        await Task.WhenAll(workers).WaitAsync(TimeSpan.FromSeconds(30));
        Assert.All(failures.Take(failedWhileDown), failure => Assert.IsType<StoreUnavailableException>(failure));
        Assert.Contains(failures, failure => failure is StoreUnavailableException { Operation: "upsert", WriteMayHaveApplied: true });
        await store.UpsertAsync(-1, -1);
        Assert.Equal(-1, (await store.ReadAsync(-1)).Value);
    }

    [Theory]
    [InlineData(20)]
    [InlineData(0)]
    public async Task AReadThatTimesOutWhileTheServerIsDown_IsRetried_AndAnswersOnceItIsBack_UnlessRetriesAreOff(int readRetries)
    {
        using var garnet = new GarnetProcess();
        var options = new RedisKVStoreOptions { Configuration = garnet.Configuration, ReadRetries = readRetries };
        await using RedisKVStore<int, int> store = await RedisKVStore<int, int>.ConnectAsync(options);
        garnet.Stop();
        Task<ReadResult<int>> reading = store.ReadAsync(1).AsTask();

        // Down for longer than the 2-second asyncTimeout: the first attempt times out before the server is back.
        await Task.Delay(TimeSpan.FromSeconds(3));
        garnet.Start();

        if (readRetries == 0)
        {
            StoreUnavailableException timedOut = await Assert.ThrowsAsync<StoreUnavailableException>(() => reading.WaitAsync(TimeSpan.FromSeconds(60)));
            Assert.False(timedOut.WriteMayHaveApplied);
            return;
        }

        // The restarted server is empty (no persistence configured): the retried read finds nothing, and says so.
        Assert.Equal(KeyStatus.NotFound, (await reading.WaitAsync(TimeSpan.FromSeconds(60))).Status);
    }

    [Fact]
    public async Task AServerWithTheSettingsDocsScaleOutRecommends_KeepsAcknowledgedWrites_AcrossARestart()
    {
        using var directory = new TempDirectory();

        // docs/scale-out.md: the append-only file, each write committed before it is acknowledged, recovered at start;
        // .NET's own file I/O, since Garnet's native Linux device needs libaio, which a machine may lack (this one does).
        using var garnet = new GarnetProcess(
            "--aof", "--aof-commit-freq", "0", "--aof-commit-wait", "--recover", "--checkpointdir", directory.Path, "--device-type", "RandomAccess");
        var options = new RedisKVStoreOptions { Configuration = garnet.Configuration };
        await using RedisKVStore<int, string> store = await RedisKVStore<int, string>.ConnectAsync(options);
        await store.UpsertAsync(1, "kept");
        await store.ApplyBatchAsync(new WriteBatch<int, string>().Upsert(2, "two").Upsert(3, "three").Delete(1));

        garnet.Stop();
        garnet.Start();

        await Eventually.TrueAsync(() => store.Connection.IsConnected, () => "the store did not reconnect to the restarted server");
        Assert.Equal([null, "two", "three"], (await store.ReadManyAsync([1, 2, 3])).Select(read => read.Value));
    }
}
