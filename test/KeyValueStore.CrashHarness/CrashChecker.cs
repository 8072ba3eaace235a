using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// The parent side: starts the worker, kills it with SIGKILL at a random moment, reopens the store and checks every
/// key against what the worker reported. The state confirmed by each check is the expectation of the next cycle.
/// </summary>
/// <remarks>
/// The rules, per key (operations on a key are sequential, see <see cref="CrashWorker"/>):
/// <list type="bullet">
/// <item>Commit mode: the recovered state is the result of the last acknowledged operation, or of the one operation
/// begun after it (it may or may not have reached the disk before the kill).</item>
/// <item>Checkpoint mode: the recovered state is the result of the last operation acknowledged before the last
/// completed on-demand checkpoint started, or of any operation begun after that one (periodic, compaction and
/// on-demand checkpoints may have saved more).</item>
/// <item>Always: the store opens, and a value is byte for byte one the worker wrote for that key.</item>
/// </list>
/// </remarks>
internal sealed class CrashChecker
{
    private readonly string _directory;
    private readonly DurabilityMode _mode;
    private readonly Random _random;
    private readonly byte[]?[] _confirmed = new byte[]?[CrashStore.KeyCount];
    private long[]? _confirmedBank;
    private long _versionBase;

    public CrashChecker(string directory, DurabilityMode mode, int seed)
    {
        _directory = directory;
        _mode = mode;
        _random = new Random(seed);
    }

    public async Task<CycleReport> RunCycleAsync(int cycle)
    {
        _versionBase += 100_000_000L;
        bool killBeforeReady = _random.Next(6) == 0;
        List<string> lines = await RunWorkerUntilKilledAsync(killBeforeReady, cycle);
        Dictionary<int, List<Operation>> operations = Parse(lines, out int lastCheckpointStart, out int acknowledged, out int checkpoints);

        var violations = new List<string>();
        await using (var store = CrashStore.Open(_directory, _mode))
        {
            for (int key = 0; key < CrashStore.KeyCount; key++)
            {
                IReadOnlyList<byte[]?> allowed = Allowed(key, operations.GetValueOrDefault(key) ?? [], lastCheckpointStart);
                byte[]? recovered;
                try
                {
                    (bool found, Storage.PooledBuffer value) = await store.ReadAsync(CrashStore.Key(key));
                    recovered = found ? value.Span.ToArray() : null;
                    value.Return();
                }
                catch (ValueChecksumMismatchException e)
                {
                    violations.Add($"cycle {cycle}, key {key}: {e.Message}");
                    continue;
                }

                if (!allowed.Any(candidate => SameState(candidate, recovered)))
                {
                    violations.Add($"cycle {cycle}, key {key}: recovered {Describe(recovered)}, allowed {string.Join(" or ", allowed.Select(Describe))}");
                }

                _confirmed[key] = recovered;
            }

            CheckBank(cycle, await store.ReadManyAsync(CrashStore.AllAccountKeys()), lines, lastCheckpointStart, violations);
        }

        return new CycleReport(cycle, killBeforeReady || lines.Count == 0, acknowledged, checkpoints, violations);
    }

    /// <summary>
    /// The bank task's batches run one after another, so the states the accounts may be in form a sequence: the
    /// confirmed state, then the state after each batch begun. The recovered accounts must be one of them, from the
    /// last batch whose outcome must survive on (the last acknowledged one in Commit mode; the last acknowledged before
    /// the last completed checkpoint started in Checkpoint mode). Half a batch, a lost acknowledged batch, or a total
    /// that changed matches none.
    /// </summary>
    private void CheckBank(int cycle, (bool Found, Storage.PooledBuffer Value)[] accounts, List<string> lines, int lastCheckpointStart, List<string> violations)
    {
        long[]? recovered = null;
        if (accounts.Any(account => account.Found))
        {
            recovered = accounts.Select(account => account.Found ? BitConverter.ToInt64(account.Value.Span) : long.MinValue).ToArray();
        }

        foreach ((bool found, Storage.PooledBuffer value) in accounts)
        {
            if (found)
            {
                value.Return();
            }
        }

        var states = new List<long[]?> { _confirmedBank };
        int mustSurvive = 0;
        for (int index = 0; index < lines.Count; index++)
        {
            string[] parts = lines[index].Split(' ');
            long[]? previous = states[^1];
            switch (parts[0])
            {
                case "O":
                    states.Add(Enumerable.Repeat(CrashStore.OpeningBalance, CrashStore.Accounts).ToArray());
                    break;
                case "T" when parts.Length == 4 && previous is not null:
                    long[] next = (long[])previous.Clone();
                    int from = int.Parse(parts[1], CultureInfo.InvariantCulture);
                    int to = int.Parse(parts[2], CultureInfo.InvariantCulture);
                    long amount = long.Parse(parts[3], CultureInfo.InvariantCulture);
                    next[from] -= amount;
                    next[to] += amount;
                    states.Add(next);
                    break;
                case "P" or "U" when _mode == DurabilityMode.Commit || index < lastCheckpointStart:
                    mustSurvive = states.Count - 1;
                    break;
            }
        }

        if (!states.Skip(mustSurvive).Any(state => state is null ? recovered is null : recovered is not null && state.SequenceEqual(recovered)))
        {
            long total = recovered?.Where(balance => balance != long.MinValue).Sum() ?? 0;
            violations.Add($"cycle {cycle}, bank: recovered {(recovered is null ? "no accounts" : $"balances totalling {total}")}, "
                + $"which is not the state after any batch from number {mustSurvive} of {states.Count - 1} in this cycle");
        }

        _confirmedBank = recovered;
    }

    private async Task<List<string>> RunWorkerUntilKilledAsync(bool killBeforeReady, int cycle)
    {
        using var worker = CrashWorkerProcess.Start(_directory, _mode, cycle * 7919, _versionBase);
        if (killBeforeReady)
        {
            // Land in the middle of recovery: the next open must still work and lose nothing.
            await Task.Delay(_random.Next(50, 400));
        }
        else
        {
            await worker.WaitUntilReadyAsync();
            await Task.Delay(_random.Next(100, 1_200));
        }

        return await worker.KillAsync();
    }

    private static Dictionary<int, List<Operation>> Parse(List<string> lines, out int lastCheckpointStart, out int acknowledged, out int checkpoints)
    {
        var operations = new Dictionary<int, List<Operation>>();
        var checkpointStarts = new Dictionary<long, int>();
        lastCheckpointStart = -1;
        acknowledged = 0;
        checkpoints = 0;
        for (int index = 0; index < lines.Count; index++)
        {
            string[] parts = lines[index].Split(' ');
            switch (parts[0])
            {
                case "B":
                    int key = int.Parse(parts[1], CultureInfo.InvariantCulture);
                    if (!operations.TryGetValue(key, out List<Operation>? list))
                    {
                        operations[key] = list = [];
                    }

                    list.Add(new Operation(long.Parse(parts[2], CultureInfo.InvariantCulture), index));
                    break;
                case "A":
                    operations[int.Parse(parts[1], CultureInfo.InvariantCulture)][^1].AcknowledgedAt = index;
                    acknowledged++;
                    break;
                case "S":
                    checkpointStarts[long.Parse(parts[1], CultureInfo.InvariantCulture)] = index;
                    break;
                case "C":
                    lastCheckpointStart = checkpointStarts[long.Parse(parts[1], CultureInfo.InvariantCulture)];
                    checkpoints++;
                    break;
                default:
                    // The kill can cut the last line short; a partial line is an operation that was never reported.
                    break;
            }
        }

        return operations;
    }

    private IReadOnlyList<byte[]?> Allowed(int key, List<Operation> operations, int lastCheckpointStart)
    {
        // The index of the last operation whose outcome must survive: the last acknowledged one (Commit), or the last
        // one acknowledged before the last completed checkpoint started (Checkpoint).
        int mustSurvive = -1;
        for (int i = 0; i < operations.Count; i++)
        {
            int? acknowledgedAt = operations[i].AcknowledgedAt;
            bool durable = _mode == DurabilityMode.Commit ? acknowledgedAt is not null : acknowledgedAt < lastCheckpointStart;
            if (durable)
            {
                mustSurvive = i;
            }
        }

        var allowed = new List<byte[]?> { mustSurvive < 0 ? _confirmed[key] : operations[mustSurvive].Result(key) };
        for (int i = mustSurvive + 1; i < operations.Count; i++)
        {
            allowed.Add(operations[i].Result(key));
        }

        return allowed;
    }

    private static bool SameState(byte[]? expected, byte[]? actual) =>
        expected is null ? actual is null : actual is not null && expected.AsSpan().SequenceEqual(actual);

    private static string Describe(byte[]? state) =>
        state is null ? "absent" : state.Length >= 12 ? $"version {BitConverter.ToInt64(state, 4)}" : $"{state.Length} unexpected bytes";

    /// <summary>One operation on a key: an upsert of <paramref name="Version"/>, or a delete when it is -1.</summary>
    private sealed record Operation(long Version, int BegunAt)
    {
        public int? AcknowledgedAt { get; set; }

        public byte[]? Result(int key) => Version < 0 ? null : CrashStore.Value(key, Version);
    }
}
