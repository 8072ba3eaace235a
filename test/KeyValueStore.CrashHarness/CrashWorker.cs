using System;
using System.Linq;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// The child process: writes until it is killed, reporting on standard output, in order, each operation it begins
/// (<c>B key version</c>, version -1 for a delete) and each one acknowledged (<c>A key version</c>), in Checkpoint
/// mode each on-demand checkpoint it starts (<c>S n</c>) and sees complete (<c>C n</c>), and the bank task's batches: the
/// opening begun (<c>O</c>) and acknowledged (<c>P</c>), each transfer begun (<c>T from to amount</c>) and acknowledged
/// (<c>U</c>).
/// </summary>
/// <remarks>
/// Each key belongs to one writer task, so the operations on a key are sequential and the checker knows their order.
/// Lines are written under one lock, so their order on the pipe is the order in which they happened.
/// </remarks>
internal static class CrashWorker
{
    private const int Writers = 4;
    private static readonly object OutputLock = new();

    public static async Task<int> RunAsync(string directory, DurabilityMode mode, int seed, long versionBase)
    {
        ExitWhenTheCheckerIsGone();
        await using var store = CrashStore.Open(directory, mode);
        Report("READY");
        var writers = new Task[Writers + 2];
        for (int w = 0; w < Writers; w++)
        {
            int writer = w;
            writers[w] = Task.Run(() => WriteForeverAsync(store, writer, new Random(seed * 31 + writer), versionBase + (writer * 1_000_000L)));
        }

        writers[Writers] = mode == DurabilityMode.Checkpoint ? Task.Run(() => CheckpointForeverAsync(store)) : Task.CompletedTask;
        writers[Writers + 1] = Task.Run(() => TransferForeverAsync(store, new Random(seed)));
        await Task.WhenAll(writers);
        return 0;
    }

    private static async Task WriteForeverAsync(Storage.FasterRecordStore store, int writer, Random random, long version)
    {
        while (true)
        {
            int key = (random.Next(CrashStore.KeyCount / Writers) * Writers) + writer;
            version++;
            if (random.Next(5) == 0)
            {
                Report($"B {key} -1");
                await store.DeleteAsync(CrashStore.Key(key));
                Report($"A {key} -1");
            }
            else
            {
                Report($"B {key} {version}");
                await store.UpsertAsync(CrashStore.Key(key), CrashStore.Value(key, version));
                Report($"A {key} {version}");
            }
        }
    }

    /// <summary>
    /// Opens the bank accounts with one batch if the store has none, then moves random amounts between random pairs of
    /// accounts, each transfer one atomic read-modify-write of both.
    /// </summary>
    private static async Task TransferForeverAsync(Storage.FasterRecordStore store, Random random)
    {
        var balances = await store.ReadManyAsync(CrashStore.AllAccountKeys());
        bool open = balances.Any(balance => balance.Found);
        foreach ((bool found, Storage.PooledBuffer value) in balances)
        {
            if (found)
            {
                value.Return();
            }
        }

        if (!open)
        {
            Report("O");
            await store.ApplyBatchAsync(Enumerable.Range(0, CrashStore.Accounts)
                .Select(account => Storage.BatchWrite.Upsert(CrashStore.AccountKey(account), BitConverter.GetBytes(CrashStore.OpeningBalance)))
                .ToList());
            Report("P");
        }

        while (true)
        {
            int from = random.Next(CrashStore.Accounts);
            int to = (from + 1 + random.Next(CrashStore.Accounts - 1)) % CrashStore.Accounts;
            long amount = random.Next(1, 100);
            Report($"T {from} {to} {amount}");
            await store.UpdateManyAsync([CrashStore.AccountKey(from), CrashStore.AccountKey(to)], current =>
            [
                Storage.BatchWrite.Upsert(CrashStore.AccountKey(from), BitConverter.GetBytes(BitConverter.ToInt64(current[0]) - amount)),
                Storage.BatchWrite.Upsert(CrashStore.AccountKey(to), BitConverter.GetBytes(BitConverter.ToInt64(current[1]) + amount)),
            ]);
            Report("U");
        }
    }

    private static async Task CheckpointForeverAsync(Storage.FasterRecordStore store)
    {
        for (long n = 1; ; n++)
        {
            await Task.Delay(100);
            Report($"S {n}");
            await store.CheckpointAsync();
            Report($"C {n}");
        }
    }

    /// <summary>
    /// The checker never writes to the worker's standard input, so end of file there means the checker died (a soak
    /// stopped with Ctrl+C or kill). Without this the worker would write forever into a directory the next soak may
    /// reuse, and hold a core.
    /// </summary>
    private static void ExitWhenTheCheckerIsGone()
    {
        var watcher = new Thread(() =>
        {
            Console.In.ReadToEnd();
            Environment.Exit(3);
        })
        {
            IsBackground = true,
            Name = "checker watcher",
        };
        watcher.Start();
    }

    private static void Report(string line)
    {
        lock (OutputLock)
        {
            Console.Out.WriteLine(line);
            Console.Out.Flush();
        }
    }
}
