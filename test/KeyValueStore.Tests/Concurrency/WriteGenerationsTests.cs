using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Tests.Concurrency;

/// <summary>
/// A Commit-mode checkpoint waits for the writes that began before it and for none that began after: the log position
/// it records is only right if every entry before it was applied, and holding later writers back is the pause it avoids.
/// </summary>
public class WriteGenerationsTests
{
    private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task WithNoWriteInFlight_TheWaitCompletesAtOnce()
    {
        var generations = new WriteGenerations();
        generations.Exit(generations.Enter());

        await generations.WaitForEarlierAsync().WaitAsync(HangLimit);
    }

    [Fact]
    public async Task TheWait_EndsWhenTheEarlierWriteExits_WhileALaterOneIsStillInFlight()
    {
        var generations = new WriteGenerations();
        int earlier = generations.Enter();

        Task wait = generations.WaitForEarlierAsync();
        int later = generations.Enter();
        Assert.False(wait.IsCompleted, "the wait ended with a write that began before it still in flight");

        generations.Exit(earlier);
        await wait.WaitAsync(HangLimit);
        generations.Exit(later);
    }

    [Fact]
    public async Task ALaterWriteExiting_DoesNotEndTheWaitForAnEarlierOne()
    {
        var generations = new WriteGenerations();
        int earlier = generations.Enter();
        Task wait = generations.WaitForEarlierAsync();

        generations.Exit(generations.Enter());
        await Task.Delay(50);
        Assert.False(wait.IsCompleted, "a later write's exit ended the wait for an earlier one");

        generations.Exit(earlier);
        await wait.WaitAsync(HangLimit);
    }

    /// <summary>
    /// Writers take a number after entering (as a Commit-mode write appends after it enters) and mark it done before
    /// they exit. Each wait reads the last number first (as a checkpoint takes the log's tail): when the wait ends, every
    /// number up to it must be done.
    /// </summary>
    [Fact]
    public async Task UnderConcurrentWriters_EveryWait_EndsOnlyOnceEachWriteNumberedBeforeItIsDone()
    {
        const int Writers = 4;
        const int Waits = 2_000;
        var generations = new WriteGenerations();
        var done = new int[4_000_000];
        long lastNumber = 0;
        using var stop = new CancellationTokenSource();

        Task[] writers = Enumerable.Range(0, Writers).Select(_ => Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                int generation = generations.Enter();
                long number = Interlocked.Increment(ref lastNumber);
                if (number >= done.Length)
                {
                    generations.Exit(generation);
                    return;
                }

                Thread.SpinWait(number % 64 == 0 ? 2_000 : 20);
                Volatile.Write(ref done[number], 1);
                generations.Exit(generation);
            }
        })).ToArray();

        try
        {
            long checkedUpTo = 0;
            for (int wait = 0; wait < Waits; wait++)
            {
                long before = Math.Min(Interlocked.Read(ref lastNumber), done.Length - 1);
                await generations.WaitForEarlierAsync().WaitAsync(HangLimit);

                // A number once done stays done: each wait checks the numbers the waits before it did not.
                for (long number = checkedUpTo + 1; number <= before; number++)
                {
                    Assert.True(Volatile.Read(ref done[number]) == 1, $"wait {wait} ended with write {number}, numbered before it began, still in flight");
                }

                checkedUpTo = Math.Max(checkedUpTo, before);
            }
        }
        finally
        {
            await stop.CancelAsync();
            await Task.WhenAll(writers).WaitAsync(HangLimit);
        }
    }
}
