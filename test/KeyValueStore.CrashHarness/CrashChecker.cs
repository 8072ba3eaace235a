using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// The parent side. Each cycle starts a worker on the store as the previous worker's crash left it: the worker recovers
/// it, reports the recovered state of the keys asked about (every key written since the last report, and a sample of
/// the rest), writes, and dies by SIGKILL at a random moment, or by a power cut it makes itself (see
/// <see cref="PowerSwitch"/>), or, once its disk failed under it and every writer stopped, by its own SIGKILL (see
/// <see cref="DiskFailure"/>). The checker holds the recovered state against everything the workers reported since the
/// last report. The store is never closed cleanly between cycles.
/// </summary>
/// <remarks>
/// The rules, per key (operations on a key are sequential, see <see cref="CrashWorker"/>):
/// <list type="bullet">
/// <item>Commit mode: the recovered state is the result of the last acknowledged operation, or of an operation begun
/// after it (a batch counts as one operation, all of it or none).</item>
/// <item>Checkpoint mode: the recovered state is the result of the last operation acknowledged before the last
/// completed on-demand checkpoint started, or of any operation begun after that one (periodic, compaction and
/// on-demand checkpoints may have saved more).</item>
/// <item>Always: the store opens, a value is byte for byte one the worker wrote for that key, and no operation throws
/// (a worker that reports a failure or exits on its own is a violation).</item>
/// </list>
/// A recovered state the rules allow becomes the key's baseline for the next report; one they do not allow is a
/// violation and never becomes the baseline, so it is reported again while it lasts.
/// </remarks>
internal sealed class CrashChecker
{
    private const int SampledKeysPerCycle = 2_000;
    private static readonly TimeSpan Hang = TimeSpan.FromMinutes(2);
    private static readonly long[] s_noMatch = [];

    private readonly string _directory;
    private readonly DurabilityMode _mode;
    private readonly bool _powerCuts;
    private readonly bool _lyingDisk;
    private readonly bool _failingDisk;
    private readonly string[] _storeArguments;
    private readonly int _seed;
    private readonly Random _random;
    private readonly string _checkKeysFile;
    private readonly ValueFingerprint?[] _confirmed = new ValueFingerprint?[CrashStore.KeyCount];

    // Where each key's confirmed state came from, and the one it replaced: a violation then says whether the store went
    // back to an older state (writes lost or rolled back) or holds a value it was never confirmed to hold.
    private readonly int[] _confirmedAt = new int[CrashStore.KeyCount];
    private readonly ValueFingerprint?[] _confirmedBefore = new ValueFingerprint?[CrashStore.KeyCount];
    private readonly int[] _confirmedBeforeAt = new int[CrashStore.KeyCount];
    private readonly List<string> _unchecked = [];
    private long[]? _confirmedBank;
    private long _versionBase;

    /// <param name="directory">The store's directory; the checker's own file goes beside it.</param>
    /// <param name="mode">The durability mode.</param>
    /// <param name="seed">Seeds every choice: kill times, workloads, what a power cut does to writes in flight.</param>
    /// <param name="powerCuts">Cut the power in the worker instead of killing it with SIGKILL.</param>
    /// <param name="lyingDisk">With power cuts: a disk that acknowledges writes before they are durable, which the checker must catch.</param>
    /// <param name="writeAheadLogElsewhere">Commit mode: the store keeps its write-ahead log in a directory of its own (<see cref="CrashStore.WriteAheadLogHome"/>).</param>
    /// <param name="failingDisk">
    /// Instead of killing the worker, fail its disk at a random moment (while it recovers, in one cycle in six) and let
    /// it stop. Not with <paramref name="powerCuts"/>.
    /// </param>
    public CrashChecker(string directory, DurabilityMode mode, int seed, bool powerCuts = false, bool lyingDisk = false, bool writeAheadLogElsewhere = false, bool failingDisk = false)
    {
        if (powerCuts && failingDisk)
        {
            throw new ArgumentException("A cycle ends with a power cut or with a failing disk, not both.", nameof(failingDisk));
        }

        _lyingDisk = lyingDisk;
        _failingDisk = failingDisk;
        _storeArguments = writeAheadLogElsewhere ? ["--wal-elsewhere"] : [];
        _directory = directory;
        _mode = mode;
        _powerCuts = powerCuts;
        _seed = seed;
        _random = new Random(seed);
        _checkKeysFile = directory.TrimEnd(Path.DirectorySeparatorChar) + ".check-keys";

        // The soak's default directory is new, and so may be its parent, where the file beside it goes.
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(_checkKeysFile))!);
    }

    public async Task<CycleReport> RunCycleAsync(int cycle)
    {
        _versionBase += 100_000_000L;
        bool duringRecovery = _random.Next(6) == 0;
        int delay = duringRecovery ? _random.Next(50, 400) : _random.Next(100, 1_200);
        string[] cut = _powerCuts ? ["--cut", duringRecovery ? "open" : "ready", delay.ToString(CultureInfo.InvariantCulture), .. _lyingDisk ? ["--lying-disk"] : Array.Empty<string>()] : [];
        string[] failure = _failingDisk ? ["--fail-disk", duringRecovery ? "open" : "ready", delay.ToString(CultureInfo.InvariantCulture)] : [];
        WriteKeysToCheck(KeysToCheck());

        var violations = new List<string>();
        using var worker = CrashWorkerProcess.Start(_directory, _mode, unchecked(_seed + (cycle * 7919)), _versionBase, _checkKeysFile, [.. cut, .. failure, .. _storeArguments]);
        List<string>? lines = _powerCuts || _failingDisk
            ? await worker.WaitForExitAsync(Hang)
            : await KillAsync(worker, duringRecovery, delay);
        if (lines is null)
        {
            violations.Add($"cycle {cycle}: the worker was still running {Hang.TotalSeconds:F0} s after it should have died (a hang), ready: {worker.Ready}. {worker.HangReport}");

            // What it acknowledged before it was killed binds the next recovery as any crash's does: dropped, the next
            // cycles would report the values it wrote as values from nowhere.
            lines = worker.LinesBeforeTheHang;
            if (lines is null)
            {
                return new CycleReport(cycle, !worker.Ready, 0, 0, default, violations);
            }
        }

        violations.AddRange(lines.Where(line => line.StartsWith("FAIL ", StringComparison.Ordinal)).Select(line => $"cycle {cycle}: the worker failed: {line[5..]}"));
        if (worker.ExitedOnItsOwn is int exitCode)
        {
            violations.Add($"cycle {cycle}: the worker exited with {exitCode} before it was killed: {await worker.Errors}");
        }
        else if (_failingDisk && worker.LinesBeforeTheHang is null && !lines.Any(line => line.StartsWith("FAULTED ", StringComparison.Ordinal) || line.StartsWith("FAIL ", StringComparison.Ordinal)))
        {
            violations.Add($"cycle {cycle}: the worker died without saying whether its writers stopped on the failed disk, the last lines: {string.Join(" | ", lines.TakeLast(3))}");
        }

        int readyAt = lines.IndexOf("READY");
        List<string> operations = readyAt < 0 ? [] : lines.GetRange(readyAt + 1, lines.Count - readyAt - 1);
        if (readyAt >= 0)
        {
            Check(cycle, lines.GetRange(0, readyAt), violations);
            _unchecked.Clear();
        }

        _unchecked.AddRange(operations);
        Parse(operations, out _, out int acknowledged, out int checkpoints);
        return new CycleReport(cycle, !worker.Ready, acknowledged, checkpoints, InFlightAtCut(lines), violations);
    }

    /// <summary>
    /// Recovers the store once more, reports every key and closes it: checks what the last cycles left unchecked, and
    /// every key the samples missed.
    /// </summary>
    public async Task<IReadOnlyList<string>> CheckEveryKeyAsync()
    {
        WriteKeysToCheck(Enumerable.Range(0, CrashStore.KeyCount));
        var violations = new List<string>();
        using var worker = CrashWorkerProcess.Start(_directory, _mode, _seed, _versionBase + 100_000_000L, _checkKeysFile, ["--check-only", .. _storeArguments]);
        List<string>? lines = await worker.WaitForExitAsync(Hang);
        int readyAt = lines?.IndexOf("READY") ?? -1;
        if (lines is null || readyAt < 0 || worker.ExitedOnItsOwn != 0)
        {
            violations.Add($"final check: the store did not recover and report (exit {worker.ExitedOnItsOwn}): {string.Join(" | ", lines?.Where(line => line.StartsWith("FAIL", StringComparison.Ordinal)) ?? [])} {await worker.Errors} {worker.HangReport}");
            return violations;
        }

        Check(0, lines.GetRange(0, readyAt), violations);
        _unchecked.Clear();
        File.Delete(_checkKeysFile);
        return violations;
    }

    private async Task<List<string>?> KillAsync(CrashWorkerProcess worker, bool duringRecovery, int delay)
    {
        if (!duringRecovery)
        {
            // Land while it writes: wait for its report first.
            Task ready = worker.WaitUntilReadyOrGoneAsync();
            if (await Task.WhenAny(ready, Task.Delay(Hang)) != ready)
            {
                await worker.KillAsHungAsync();
                return null;
            }
        }

        await Task.Delay(delay);
        return await worker.KillAsync();
    }

    private static (int Lost, int Torn, int Whole) InFlightAtCut(List<string> lines)
    {
        string[]? cut = lines.LastOrDefault(line => line.StartsWith("CUT ", StringComparison.Ordinal))?.Split(' ');
        return cut is null ? default : (int.Parse(cut[1], CultureInfo.InvariantCulture), int.Parse(cut[2], CultureInfo.InvariantCulture), int.Parse(cut[3], CultureInfo.InvariantCulture));
    }

    /// <summary>Every key written since the last report, and a sample of the others: their state must not have moved.</summary>
    private IEnumerable<int> KeysToCheck()
    {
        var keys = new HashSet<int>(Parse(_unchecked, out _, out _, out _).Keys);
        for (int sample = 0; sample < SampledKeysPerCycle; sample++)
        {
            keys.Add(_random.Next(CrashStore.KeyCount));
        }

        return keys;
    }

    private void WriteKeysToCheck(IEnumerable<int> keys) =>
        File.WriteAllLines(_checkKeysFile, keys.Select(key => key.ToString(CultureInfo.InvariantCulture)));

    /// <summary>Holds a worker's report of the recovered store against the operations reported since the last report.</summary>
    private void Check(int cycle, List<string> report, List<string> violations)
    {
        Dictionary<int, List<Operation>> operations = Parse(_unchecked, out int lastCheckpointStart, out _, out _);
        string where = cycle == 0 ? "final check" : $"cycle {cycle}";
        foreach (string line in report)
        {
            string[] parts = line.Split(' ');
            if (parts[0] == "RB")
            {
                CheckBank(where, parts, lastCheckpointStart, violations);
                continue;
            }

            if (parts[0] != "R")
            {
                continue;
            }

            int key = int.Parse(parts[1], CultureInfo.InvariantCulture);
            ValueFingerprint? recovered = parts[2] == "-" ? null : ValueFingerprint.Parse(parts[2], parts[3]);
            IReadOnlyList<ValueFingerprint?> allowed = Allowed(key, operations.GetValueOrDefault(key) ?? [], lastCheckpointStart);
            if (allowed.Contains(recovered))
            {
                Confirm(key, recovered, cycle);
            }
            else
            {
                violations.Add($"{where}, key {key}: recovered {DescribeRecovered(key, recovered, operations)}, allowed {string.Join(" or ", allowed.Select(state => Describe(key, state, operations)))}");
                Confirm(key, allowed[0], cycle);
            }
        }
    }

    private void Confirm(int key, ValueFingerprint? state, int cycle)
    {
        if (state != _confirmed[key])
        {
            _confirmedBefore[key] = _confirmed[key];
            _confirmedBeforeAt[key] = _confirmedAt[key];
        }

        _confirmed[key] = state;
        _confirmedAt[key] = cycle;
    }

    /// <summary>
    /// A recovered state: the operation since the last check that wrote it, else whether the key held it before (the
    /// store went back) or never did in the last two checks.
    /// </summary>
    private string DescribeRecovered(int key, ValueFingerprint? recovered, Dictionary<int, List<Operation>> operations)
    {
        string described = Describe(key, recovered, operations);
        if (operations.GetValueOrDefault(key)?.Any(operation => operation.Result(key) == recovered) == true)
        {
            return described;
        }

        foreach (BatchPlan plan in BatchPlans(_unchecked))
        {
            foreach (long version in plan.EarlierVersionsOf(key))
            {
                if (new Operation(version, 0).Result(key) == recovered)
                {
                    return $"{described}: version {version}, a write of batch {plan.Id} that the batch's later write of the key replaces, so the batch was recovered in part";
                }
            }
        }

        return recovered == _confirmed[key] ? $"{described}, the state confirmed at {CheckName(_confirmedAt[key])}: every write since is gone"
            : recovered == _confirmedBefore[key] ? $"{described}, the state confirmed at {CheckName(_confirmedBeforeAt[key])}, older still"
            : $"{described}, no state the key was confirmed to hold in the last two checks";
    }

    /// <summary>The batches the <c>BB</c> lines of <paramref name="lines"/> began.</summary>
    private static IEnumerable<BatchPlan> BatchPlans(IEnumerable<string> lines) =>
        lines.Select(line => line.Split(' ')).Where(parts => parts[0] == "BB" && parts.Length == 5).Select(ParseBatch);

    /// <summary>A <c>BB id first count firstVersion</c> line, split.</summary>
    private static BatchPlan ParseBatch(string[] parts) => new(
        long.Parse(parts[1], CultureInfo.InvariantCulture),
        int.Parse(parts[2], CultureInfo.InvariantCulture),
        int.Parse(parts[3], CultureInfo.InvariantCulture),
        long.Parse(parts[4], CultureInfo.InvariantCulture));

    private static string CheckName(int cycle) => cycle == 0 ? "the start" : $"the check of cycle {cycle}";

    /// <summary>
    /// The bank task's batches run one after another, so the states the accounts may be in form a sequence: the
    /// confirmed state, then the state after each batch begun. The recovered accounts must be one of them, from the
    /// last batch whose outcome must survive on (the last acknowledged one in Commit mode; the last acknowledged before
    /// the last completed checkpoint started in Checkpoint mode). Half a batch, a lost acknowledged batch, or a total
    /// that changed matches none.
    /// </summary>
    private void CheckBank(string where, string[] report, int lastCheckpointStart, List<string> violations)
    {
        long[]? recovered = report[1] == "-"
            ? null
            : report.Skip(1).Select(balance => balance == "-" ? long.MinValue : long.Parse(balance, CultureInfo.InvariantCulture)).ToArray();

        var states = new List<long[]?> { _confirmedBank };
        int mustSurvive = 0;
        for (int index = 0; index < _unchecked.Count; index++)
        {
            string[] parts = _unchecked[index].Split(' ');
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

        long[]? match = states.Skip(mustSurvive).FirstOrDefault(state => state is null ? recovered is null : recovered is not null && state.SequenceEqual(recovered), s_noMatch);
        if (ReferenceEquals(match, s_noMatch))
        {
            long total = recovered?.Where(balance => balance != long.MinValue).Sum() ?? 0;
            violations.Add($"{where}, bank: recovered {(recovered is null ? "no accounts" : $"balances totalling {total}")}, "
                + $"which is not the state after any batch from number {mustSurvive} of {states.Count - 1} since the last check");
            _confirmedBank = states[mustSurvive];
        }
        else
        {
            _confirmedBank = recovered;
        }
    }

    private static Dictionary<int, List<Operation>> Parse(List<string> lines, out int lastCheckpointStart, out int acknowledged, out int checkpoints)
    {
        var operations = new Dictionary<int, List<Operation>>();
        var batches = new Dictionary<long, List<Operation>>();
        var checkpointStarts = new Dictionary<long, int>();
        lastCheckpointStart = -1;
        acknowledged = 0;
        checkpoints = 0;
        for (int index = 0; index < lines.Count; index++)
        {
            string[] parts = lines[index].Split(' ');
            switch (parts[0])
            {
                case "B" when parts.Length == 3:
                    Add(int.Parse(parts[1], CultureInfo.InvariantCulture), new Operation(long.Parse(parts[2], CultureInfo.InvariantCulture), index));
                    break;
                case "A" when parts.Length == 3:
                    operations[int.Parse(parts[1], CultureInfo.InvariantCulture)][^1].AcknowledgedAt = index;
                    acknowledged++;
                    break;
                case "BB" when parts.Length == 5:
                    BatchPlan plan = ParseBatch(parts);
                    var batch = new List<Operation>();
                    foreach ((int key, long version) in plan.Outcome())
                    {
                        var operation = new Operation(version, index);
                        Add(key, operation);
                        batch.Add(operation);
                    }

                    batches[plan.Id] = batch;
                    break;
                case "BA" when parts.Length == 2:
                    foreach (Operation operation in batches[long.Parse(parts[1], CultureInfo.InvariantCulture)])
                    {
                        operation.AcknowledgedAt = index;
                    }

                    acknowledged++;
                    break;
                case "S" when parts.Length == 2:
                    checkpointStarts[long.Parse(parts[1], CultureInfo.InvariantCulture)] = index;
                    break;
                case "C" when parts.Length == 2:
                    lastCheckpointStart = checkpointStarts[long.Parse(parts[1], CultureInfo.InvariantCulture)];
                    checkpoints++;
                    break;
                default:
                    // The crash can cut the last line short; a partial line is an operation that was never reported.
                    break;
            }
        }

        return operations;

        void Add(int key, Operation operation)
        {
            if (!operations.TryGetValue(key, out List<Operation>? list))
            {
                operations[key] = list = [];
            }

            list.Add(operation);
        }
    }

    private IReadOnlyList<ValueFingerprint?> Allowed(int key, List<Operation> operations, int lastCheckpointStart)
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

        var allowed = new List<ValueFingerprint?> { mustSurvive < 0 ? _confirmed[key] : operations[mustSurvive].Result(key) };
        for (int i = mustSurvive + 1; i < operations.Count; i++)
        {
            allowed.Add(operations[i].Result(key));
        }

        return allowed;
    }

    private static string Describe(int key, ValueFingerprint? state, Dictionary<int, List<Operation>> operations)
    {
        if (state is null)
        {
            return "absent";
        }

        Operation? written = operations.GetValueOrDefault(key)?.LastOrDefault(operation => operation.Result(key) == state);
        return written is null ? $"a value of {state.Value.Length} bytes" : $"version {written.Version}";
    }

    /// <summary>One operation on a key: an upsert of <paramref name="Version"/>, or a delete when it is -1.</summary>
    private sealed record Operation(long Version, int BegunAt)
    {
        public int? AcknowledgedAt { get; set; }

        public ValueFingerprint? Result(int key) => Version < 0 ? null : ValueFingerprint.Of(CrashStore.Value(key, Version));
    }
}
