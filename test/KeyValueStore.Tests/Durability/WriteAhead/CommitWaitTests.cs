using System;
using System.Threading.Tasks;
using KeyValueStore.Durability;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// Writers waiting for the write-ahead log's group commit (<see cref="WriteAheadLog.WaitForCommitAsync"/>), and appends
/// waiting for a commit to make room in the log's memory: woken by the commit, the store's fault or the log's close, on
/// a real log with no group-commit loop running, so that each wait stays pending until the test moves it.
/// </summary>
public class CommitWaitTests
{
    private const int Waiters = 200;
    private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task WaitersOfOneCommit_AllocateLittleEach_AndAllWakeWhenItCompletes()
    {
        using var temp = new TempDirectory();
        WriteAheadLog log = WriteAheadLog.Open(temp.Path, WriteAheadLog.SegmentSizeBitsFor(24), new StoreFault(), NullLogger.Instance);
        await using var closing = log;
        var addresses = new long[Waiters];
        for (int i = 0; i < Waiters; i++)
        {
            addresses[i] = await log.AppendAsync(BitConverter.GetBytes(i), new byte[100], isDelete: false);
        }

        // Warmed up: the first wait and commit run the code paths once.
        ValueTask warmUp = log.WaitForCommitAsync(addresses[0]);
        await log.CommitAsync();
        await warmUp.AsTask().WaitAsync(HangLimit);
        for (int i = 0; i < Waiters; i++)
        {
            addresses[i] = await log.AppendAsync(BitConverter.GetBytes(i), new byte[100], isDelete: false);
        }

        var waits = new ValueTask[Waiters];
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < Waiters; i++)
        {
            waits[i] = log.WaitForCommitAsync(addresses[i]);
        }

        long perWaiter = (GC.GetAllocatedBytesForCurrentThread() - before) / Waiters;
        Assert.All(waits, wait => Assert.False(wait.IsCompleted));

        await log.CommitAsync();
        foreach (ValueTask wait in waits)
        {
            await wait.AsTask().WaitAsync(HangLimit);
        }

        // A pending wait is one pooled state machine (141 bytes here). Waits linked to the store's fault token through
        // FASTER also each took FASTER's own state machine, a completion source, a Task.WhenAny and a registration on that
        // one token: 748 bytes.
        Assert.True(perWaiter < 400, $"a pending wait allocated {perWaiter} bytes");
    }

    [Fact]
    public async Task AWaiterWithNoCommitComing_WakesWithTheStoresFault()
    {
        using var temp = new TempDirectory();
        var fault = new StoreFault();
        WriteAheadLog log = WriteAheadLog.Open(temp.Path, WriteAheadLog.SegmentSizeBitsFor(24), fault, NullLogger.Instance);
        await using var closing = log;
        long address = await log.AppendAsync(BitConverter.GetBytes(1), new byte[100], isDelete: false);
        Task wait = log.WaitForCommitAsync(address).AsTask();
        Assert.False(wait.IsCompleted);

        fault.Report("log segment files", new System.IO.IOException("injected"));

        var thrown = await Assert.ThrowsAsync<StoreFaultedException>(() => wait.WaitAsync(HangLimit));
        Assert.Contains("log segment files", thrown.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AWaiterWithNoCommitComing_WakesWhenTheLogCloses()
    {
        using var temp = new TempDirectory();
        WriteAheadLog log = WriteAheadLog.Open(temp.Path, WriteAheadLog.SegmentSizeBitsFor(24), new StoreFault(), NullLogger.Instance);
        long address = await log.AppendAsync(BitConverter.GetBytes(1), new byte[100], isDelete: false);
        Task wait = log.WaitForCommitAsync(address).AsTask();

        await log.DisposeAsync();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => wait.WaitAsync(HangLimit));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AnAppendWaitingForRoomInTheLogsMemory_GoesOnAfterACommit_OrEndsWithTheStoresFault(bool faults)
    {
        using var temp = new TempDirectory();
        var fault = new StoreFault();
        WriteAheadLog log = WriteAheadLog.Open(temp.Path, WriteAheadLog.SegmentSizeBitsFor(24), fault, NullLogger.Instance);
        await using var closing = log;

        // With no commit nothing is flushed, so the log's memory fills and an append has to wait for room.
        byte[] value = new byte[50_000];
        Task<long> waiting = Task.FromResult(0L);
        for (int i = 0; i < 2_000 && waiting.IsCompleted; i++)
        {
            waiting = log.AppendAsync(BitConverter.GetBytes(i), value, isDelete: false).AsTask();
        }

        Assert.False(waiting.IsCompleted, "premise: an append waits for room");
        if (faults)
        {
            fault.Report("log segment files", new System.IO.IOException("injected"));
            var thrown = await Assert.ThrowsAsync<StoreFaultedException>(() => waiting.WaitAsync(HangLimit));
            Assert.Contains("log segment files", thrown.Message, StringComparison.Ordinal);
        }
        else
        {
            await log.CommitAsync();
            long address = await waiting.WaitAsync(HangLimit);
            Assert.True(address >= log.BeginAddress);
        }
    }
}
