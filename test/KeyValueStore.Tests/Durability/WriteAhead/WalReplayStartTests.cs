using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Durability;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// Where a Commit-mode checkpoint's replay starts (<see cref="WriteAheadLog.ReplayStart"/>) is always a place replay
/// can start from. A transaction over 64 KB is appended piece by piece, waiting between pieces when the log's memory is
/// full; the checkpoint once took the log's tail, and a tail between two pieces made the log unreadable after a crash
/// ("continues a transaction which has no first piece": the power-cut crash test caught it).
/// </summary>
public class WalReplayStartTests
{
    [Fact]
    public async Task EveryReplayStart_SeenWhileTransactionsAreAppendedInPieces_ReplaysWithoutAnError()
    {
        using var temp = new TempDirectory();
        var fault = new StoreFault();
        WriteAheadLog log = WriteAheadLog.Open(temp.Path, WriteAheadLog.SegmentSizeBitsFor(24), fault, NullLogger.Instance);
        await using var closing = log;
        log.StartGroupCommit();

        // Sixty transactions of 200 KB, four pieces each: 12 MB, more than the log's 8 MB of memory, so pieces also
        // wait for flushes on the way.
        byte[] value = new byte[50_000];
        var seen = new ConcurrentDictionary<WalPosition, bool>();
        using var appending = new CancellationTokenSource();
        using var watching = new ManualResetEventSlim();

        // A thread of its own, so that a busy thread pool (tests run in parallel) cannot keep it from looking.
        var watcher = new Thread(() =>
        {
            watching.Set();
            for (int look = 1; !appending.IsCancellationRequested; look++)
            {
                seen.TryAdd(log.ReplayStart, true);

                // Looks a few microseconds apart: a millisecond apart saw too few places (24 in CI). A spin rather than a
                // yield per look, whose system calls added up under CI's load; every hundredth look gives the core back
                // to the tests running in parallel on machines of two cores.
                Thread.SpinWait(20);
                if (look % 100 == 0)
                {
                    Thread.Yield();
                }
            }
        });
        watcher.Start();
        watching.Wait();

        try
        {
            // At least sixty transactions, and more while the watcher has seen too few places to judge (a loaded machine).
            for (int transaction = 0; transaction < 600 && (transaction < 60 || seen.Count < 30); transaction++)
            {
                var writes = Enumerable.Range(0, 4).Select(i => new BatchWrite(BitConverter.GetBytes((transaction * 4) + i), value, IsDelete: false)).ToList();
                await log.AppendAsync(writes);

                // The watcher must look while transactions are under way, and on a loaded machine of two cores its thread
                // can go unscheduled for nearly all of a run that takes a fraction of a second (24 places in 600
                // transactions, 158 ms, in CI): while it lags, the appender gives it a millisecond.
                if (seen.Count <= transaction / 2)
                {
                    await Task.Delay(1);
                }
            }
        }
        finally
        {
            await appending.CancelAsync();
            watcher.Join();
        }

        await log.CommitAsync();
        Assert.True(seen.Count >= 30, $"only {seen.Count} positions were seen");
        var unreadable = new List<string>();
        foreach (WalPosition start in seen.Keys.OrderBy(position => position.Address))
        {
            try
            {
                await log.VerifyAsync(start);
            }
            catch (StoreFileCorruptedException e)
            {
                unreadable.Add($"{start}: {e.Message}");
            }
        }

        Assert.True(unreadable.Count == 0, $"{unreadable.Count} of {seen.Count} replay starts cannot be replayed from:\n" + string.Join("\n", unreadable.Take(3)));
    }
}
