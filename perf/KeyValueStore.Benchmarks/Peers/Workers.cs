using System;
using System.Threading.Tasks;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>Runs a benchmark's operations on concurrent tasks started on the thread pool.</summary>
internal static class Workers
{
    /// <summary>Splits <paramref name="operations"/> between <paramref name="tasks"/> workers and waits for them all.</summary>
    /// <param name="tasks">How many workers run at once.</param>
    /// <param name="operations">How many operations in all; the last worker takes the remainder.</param>
    /// <param name="work">A worker: its index and its operation count.</param>
    public static Task RunAsync(int tasks, int operations, Func<int, int, Task> work)
    {
        var workers = new Task[tasks];
        int share = operations / tasks;
        for (int worker = 0; worker < tasks; worker++)
        {
            int index = worker;
            int count = worker == tasks - 1 ? operations - (share * (tasks - 1)) : share;
            workers[worker] = Task.Run(() => work(index, count));
        }

        return Task.WhenAll(workers);
    }
}
