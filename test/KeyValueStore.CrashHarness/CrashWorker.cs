using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// The child process. It opens (recovers) the store, reports the recovered state of the keys the checker asked about,
/// then writes until it is killed or cuts its own power.
/// </summary>
/// <remarks>
/// Report lines on standard output, in the order things happened (one lock around all of them):
/// <list type="bullet">
/// <item><c>R key -</c> or <c>R key length hash</c>: a recovered key (see <see cref="ValueFingerprint"/>); <c>RB</c> and
/// the sixteen balances, or <c>RB -</c>: the recovered bank. <c>READY</c> ends the report; writing starts after it.</item>
/// <item><c>B key version</c> begun, <c>A key version</c> acknowledged: one write by a single writer (version -1 deletes).</item>
/// <item><c>BB id first count version</c> begun, <c>BA id</c> acknowledged: a batch of <c>count</c> entries over the
/// batch writer's keys from <c>first</c> on (see <see cref="BatchPlan"/>).</item>
/// <item><c>S n</c>, <c>C n</c>: an on-demand checkpoint started and completed (Checkpoint mode).</item>
/// <item><c>O</c>, <c>P</c>: the bank opened, begun and acknowledged; <c>T from to amount</c>, <c>U</c>: a transfer.</item>
/// <item><c>CUT lost torn whole</c>: the power was cut; what became of the writes in flight.</item>
/// <item><c>FAIL type: message</c>: an operation threw, which no crash explains; the worker then exits with 4.</item>
/// </list>
/// Each key belongs to one task, so the operations on a key are sequential and the checker knows their order.
/// </remarks>
internal static class CrashWorker
{
    private const int SingleWriters = 4;
    private static readonly object OutputLock = new();

    /// <summary>How long every writer has to stop, once one has stopped on the failed disk, before the worker calls it a hang.</summary>
    private static readonly TimeSpan WritersStopAfterTheDiskFails = TimeSpan.FromSeconds(20);
    private static PowerSwitch? s_power;
    private static DiskFailure? s_disk;
    private static long s_acknowledgedSinceTheDiskFailed;

    /// <param name="directory">The store's directory.</param>
    /// <param name="mode">The durability mode.</param>
    /// <param name="seed">Seeds the workload and the power cut.</param>
    /// <param name="versionBase">Versions, batch and checkpoint numbers of this run start above it.</param>
    /// <param name="checkKeysFile">The keys to report after recovery, one per line.</param>
    /// <param name="powerCut">Null for a worker the checker kills; else when to cut the power: after opening starts, or after <c>READY</c>.</param>
    /// <param name="checkOnly">Report the recovered keys and exit, closing the store cleanly.</param>
    /// <param name="lyingDisk">With a power cut: the disk acknowledges writes before they are durable (see <see cref="PowerSwitch.LyingDisk"/>).</param>
    /// <param name="writeAheadLogElsewhere">Commit mode: the write-ahead log in a directory of its own (<see cref="CrashStore.WriteAheadLogHome"/>).</param>
    /// <param name="diskFailure">Null, or when the store's disk fails: after opening starts, or after <c>READY</c> (see <see cref="EndOnTheFailedDiskAsync"/>).</param>
    public static async Task<int> RunAsync(
        string directory, DurabilityMode mode, int seed, long versionBase, string checkKeysFile, (bool AfterReady, int Milliseconds)? powerCut, bool checkOnly, bool lyingDisk = false, bool writeAheadLogElsewhere = false, (bool AfterReady, int Milliseconds)? diskFailure = null)
    {
        ExitWhenTheCheckerIsGone();
        bool writersStarted = false;
        s_disk = diskFailure is null ? null : new DiskFailure();
        if (diskFailure is { AfterReady: false } failsAtOpen)
        {
            FailDiskAfter(s_disk!, failsAtOpen.Milliseconds);
        }

        if (powerCut is { } cut)
        {
            s_power = new PowerSwitch(seed, lyingDisk);
            if (!cut.AfterReady)
            {
                CutPowerAfter(cut.Milliseconds);
            }
        }

        try
        {
            await using FasterRecordStore store = CrashStore.Open(directory, mode, s_power, writeAheadLogElsewhere, s_disk);
            await ReportRecoveredAsync(store, File.ReadAllLines(checkKeysFile).Select(int.Parse).ToArray());
            Report("READY");
            if (checkOnly)
            {
                // A final check that hangs says whether it was in the close.
                Report("CLOSING");
                await store.DisposeAsync();
                Report("CLOSED");
                return 0;
            }

            if (powerCut is { AfterReady: true } afterReady)
            {
                CutPowerAfter(afterReady.Milliseconds);
            }

            if (diskFailure is { AfterReady: true } failsLater)
            {
                FailDiskAfter(s_disk!, failsLater.Milliseconds);
            }

            writersStarted = true;
            var tasks = new Dictionary<Task, string>();
            for (int owner = 0; owner < SingleWriters; owner++)
            {
                int writer = owner;
                tasks.Add(Task.Run(() => WriteForeverAsync(store, writer, new Random(seed * 31 + writer), versionBase + (writer * 10_000_000L))), $"writer {writer}");
            }

            tasks.Add(Task.Run(() => WriteBatchesForeverAsync(store, new Random(seed * 37), versionBase + (CrashStore.BatchOwner * 10_000_000L))), "batch writer");
            if (mode == DurabilityMode.Checkpoint)
            {
                tasks.Add(Task.Run(() => CheckpointForeverAsync(store, versionBase)), "checkpoints");
            }

            tasks.Add(Task.Run(() => TransferForeverAsync(store, new Random(seed))), "transfers");
            Task first = await Task.WhenAny(tasks.Keys);
            if (s_disk is { HasFailed: true })
            {
                await EndOnTheFailedDiskAsync(tasks);
            }

            await first;
            throw new InvalidOperationException("A writer stopped without an exception.");
        }
        catch (Exception e) when (!writersStarted && s_disk is { HasFailed: true } && e is StoreFaultedException or LogDirectoryUnavailableException)
        {
            // The disk failed while the store opened or reported what it recovered: the open or the read must fail
            // this way (a hang, or any other exception, is the failure), and the next cycle opens on a working disk.
            // Only before the writers start: once they run, their ends are judged by EndOnTheFailedDiskAsync, and a writer
            // stopped by the store's fault before the disk failed must stay a failure.
            Report($"FAULTED before the writers started: {e.GetType().Name}");
            Process.GetCurrentProcess().Kill();
            return 4;
        }
        catch (Exception e) when (s_power?.IsOff != true)
        {
            // The stack on the same line: a failure seen once in hundreds of runs must say where it came from.
            Report($"FAIL {e.GetType().FullName}: {e.Message.ReplaceLineEndings(" ")} at {e.StackTrace?.ReplaceLineEndings(" | ")}");
            return 4;
        }
    }

    private static async Task ReportRecoveredAsync(FasterRecordStore store, int[] keys)
    {
        foreach (int[] chunk in keys.Chunk(1_024))
        {
            (bool Found, PooledBuffer Value)[] values = await store.ReadManyAsync(chunk.Select(key => (ReadOnlyMemory<byte>)CrashStore.Key(key)).ToList());
            var lines = new StringBuilder();
            for (int index = 0; index < chunk.Length; index++)
            {
                lines.Append("R ").Append(chunk[index]).Append(' ');
                lines.Append(values[index].Found ? ValueFingerprint.Of(values[index].Value.Span).ToString() : "-").Append('\n');
                if (values[index].Found)
                {
                    values[index].Value.Return();
                }
            }

            Report(lines.ToString().TrimEnd('\n'));
        }

        long?[] balances = await ReadBalancesAsync(store);
        Report(balances.All(balance => balance is null) ? "RB -" : "RB " + string.Join(' ', balances.Select(balance => balance?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "-")));
    }

    private static async Task WriteForeverAsync(FasterRecordStore store, int writer, Random random, long version)
    {
        int ownedKeys = CrashStore.KeyCount / CrashStore.KeyOwners;
        while (true)
        {
            int key = (random.Next(ownedKeys) * CrashStore.KeyOwners) + writer;
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

    /// <summary>Batches of 1 to 65,535 entries, their sizes spread evenly on a log scale, so large batches are frequent.</summary>
    private static async Task WriteBatchesForeverAsync(FasterRecordStore store, Random random, long version)
    {
        for (long id = version; ; id++)
        {
            int count = (int)Math.Clamp(Math.Exp(random.NextDouble() * Math.Log(BatchPlan.MaxEntries)), 1, BatchPlan.MaxEntries);
            var plan = new BatchPlan(id, random.Next(BatchPlan.OwnedKeys), count, version + 1);
            version += count;
            Report($"BB {plan.Id} {plan.First} {plan.Count} {plan.FirstVersion}");
            await store.ApplyBatchAsync(plan.Entries()
                .Select(entry => entry.Version < 0
                    ? BatchWrite.Delete(CrashStore.Key(entry.Key))
                    : BatchWrite.Upsert(CrashStore.Key(entry.Key), CrashStore.Value(entry.Key, entry.Version)))
                .ToList());
            Report($"BA {plan.Id}");
        }
    }

    /// <summary>
    /// Opens the bank accounts with one batch if the store has none, then moves random amounts between random pairs of
    /// accounts, each transfer one atomic read-modify-write of both.
    /// </summary>
    private static async Task TransferForeverAsync(FasterRecordStore store, Random random)
    {
        if ((await ReadBalancesAsync(store)).All(balance => balance is null))
        {
            Report("O");
            await store.ApplyBatchAsync(Enumerable.Range(0, CrashStore.Accounts)
                .Select(account => BatchWrite.Upsert(CrashStore.AccountKey(account), BitConverter.GetBytes(CrashStore.OpeningBalance)))
                .ToList());
            Report("P");
        }

        while (true)
        {
            int from = random.Next(CrashStore.Accounts);
            int to = (from + 1 + random.Next(CrashStore.Accounts - 1)) % CrashStore.Accounts;
            long amount = random.Next(1, 100);
            Report($"T {from} {to} {amount}");
            (long Begin, long Head, long Tail) before = LogAddresses(store);
            try
            {
                await store.UpdateManyAsync([CrashStore.AccountKey(from), CrashStore.AccountKey(to)], current =>
                [
                    BatchWrite.Upsert(CrashStore.AccountKey(from), BitConverter.GetBytes(Balance(from, current[0]) - amount)),
                    BatchWrite.Upsert(CrashStore.AccountKey(to), BitConverter.GetBytes(Balance(to, current[1]) + amount)),
                ]);
            }
            catch (AccountMisreadException e)
            {
                // Read again outside the transfer (which held the accounts' stripes): a miss that heals points at the read,
                // one that lasts at the records. The log's addresses before and after say whether compaction moved it.
                long?[] again = await ReadBalancesAsync(store);
                throw new InvalidOperationException(
                    $"{e.Message}; read again at once: {string.Join(' ', again.Select(balance => balance?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "-"))}; the log's begin, head and tail before the transfer {before}, after it {LogAddresses(store)}",
                    e);
            }

            Report("U");
        }
    }

    /// <summary>An account's balance as a transfer read it; an open account is never absent nor of another size.</summary>
    private static long Balance(int account, byte[]? stored) =>
        stored is { Length: sizeof(long) }
            ? BitConverter.ToInt64(stored)
            : throw new AccountMisreadException($"account {account} read as {(stored is null ? "absent" : $"{stored.Length} bytes")} inside a transfer: every account is opened by one batch and never deleted, so either recovery left the accounts in part (the RB line shows it) or a read of the running store lost a key");

    /// <summary>The log's begin, head and tail addresses now: kept before each transfer, formatted only if it misreads.</summary>
    private static (long Begin, long Head, long Tail) LogAddresses(FasterRecordStore store) =>
        (store.FasterKV.Log.BeginAddress, store.FasterKV.Log.HeadAddress, store.FasterKV.Log.TailAddress);

    /// <summary>A transfer read an account as absent or of the wrong size (see <see cref="Balance"/>).</summary>
    private sealed class AccountMisreadException(string message) : Exception(message);

    private static async Task<long?[]> ReadBalancesAsync(FasterRecordStore store)
    {
        (bool Found, PooledBuffer Value)[] accounts = await store.ReadManyAsync(CrashStore.AllAccountKeys());
        var balances = new long?[accounts.Length];
        for (int index = 0; index < accounts.Length; index++)
        {
            if (accounts[index].Found)
            {
                balances[index] = BitConverter.ToInt64(accounts[index].Value.Span);
                accounts[index].Value.Return();
            }
        }

        return balances;
    }

    private static async Task CheckpointForeverAsync(FasterRecordStore store, long versionBase)
    {
        for (long n = versionBase + 1; ; n++)
        {
            await Task.Delay(100);
            Report($"S {n}");
            await store.CheckpointAsync();
            Report($"C {n}");
        }
    }

    /// <summary>Fails <paramref name="disk"/> after <paramref name="milliseconds"/>, and says so.</summary>
    private static void FailDiskAfter(DiskFailure disk, int milliseconds)
    {
        var failer = new Thread(() =>
        {
            Thread.Sleep(milliseconds);
            disk.Fail();
            Report("DISK FAILED");
        })
        {
            IsBackground = true,
            Name = "disk failure",
        };
        failer.Start();
    }

    /// <summary>
    /// Once a writer has stopped after the disk failed: every writer must stop soon, each with
    /// <see cref="StoreFaultedException"/>; none may hang on the dead disk or fail in another way. Reports
    /// <c>FAULTED</c> or a failure, then dies with SIGKILL, as the process of a store whose disk died would be
    /// restarted, and the checker recovers the store on a working disk.
    /// </summary>
    private static async Task EndOnTheFailedDiskAsync(Dictionary<Task, string> tasks)
    {
        Task all = Task.WhenAll(tasks.Keys);
        if (await Task.WhenAny(all, Task.Delay(WritersStopAfterTheDiskFails)) != all)
        {
            // Whether they hang or go on writing, and where: operations acknowledged since the failure, and the stacks.
            string running = string.Join(", ", tasks.Where(task => !task.Key.IsCompleted).Select(task => task.Value));
            string stacks = await HangDiagnostics.StacksOfAsync(Environment.ProcessId);
            Report($"FAIL {running} still running {WritersStopAfterTheDiskFails.TotalSeconds:F0} s after the first writer stopped on the failed disk, with {Interlocked.Read(ref s_acknowledgedSinceTheDiskFailed)} operations acknowledged since it failed; stacks: {stacks.ReplaceLineEndings(" | ")}");
        }
        else
        {
            var others = tasks.Keys.Select(task => task.Exception?.InnerException).Where(e => e is not StoreFaultedException).ToList();
            foreach (Exception? other in others)
            {
                Report(other is null
                    ? "FAIL a writer stopped without an exception after the disk failed"
                    : $"FAIL a writer stopped on the failed disk with {other.GetType().FullName}, not StoreFaultedException: {other.Message.ReplaceLineEndings(" ")} at {other.StackTrace?.ReplaceLineEndings(" | ")}");
            }

            Report($"FAULTED {tasks.Count}");
        }

        Process.GetCurrentProcess().Kill();
        await Task.Delay(Timeout.Infinite);
    }

    /// <summary>
    /// After <paramref name="milliseconds"/>, and once a write is in flight if one comes within 200 ms, cuts the power (see <see cref="PowerSwitch.Cut"/>) and dies at once with
    /// SIGKILL: nothing written after the cut reaches a file, and no one outlives it.
    /// </summary>
    private static void CutPowerAfter(int milliseconds)
    {
        var cutter = new Thread(() =>
        {
            Thread.Sleep(milliseconds);

            // Aim at a moment with writes in flight, when a cut can lose or tear something; give up waiting after 200 ms.
            var aiming = Stopwatch.StartNew();
            while (s_power!.InFlight == 0 && aiming.ElapsedMilliseconds < 200)
            {
                Thread.Yield();
            }

            s_power.Cut();
            (int lost, int torn, int whole) = s_power.Outcome;
            Report($"CUT {lost} {torn} {whole}");
            Process.GetCurrentProcess().Kill();
        })
        {
            IsBackground = true,
            Name = "power cut",
        };
        cutter.Start();
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
        if (s_disk is { HasFailed: true } && IsAcknowledgement(line))
        {
            Interlocked.Increment(ref s_acknowledgedSinceTheDiskFailed);
        }

        lock (OutputLock)
        {
            Console.Out.WriteLine(line);
            Console.Out.Flush();
        }
    }

    /// <summary>Whether <paramref name="line"/> reports an operation acknowledged: a write, a batch, a transfer, a checkpoint.</summary>
    private static bool IsAcknowledgement(string line) =>
        line == "U" || line.StartsWith("A ", StringComparison.Ordinal) || line.StartsWith("BA ", StringComparison.Ordinal) || line.StartsWith("C ", StringComparison.Ordinal);
}
