using System.IO;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.CrashHarness;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// Crashes at random moments (while writing, checkpointing, compacting, and while recovering), each cycle recovering
/// what the previous crash left, checked against what the crashed process acknowledged. A crash is a SIGKILL, or a
/// power cut: the writes in flight lost, torn or written whole (<see cref="PowerSwitch"/>). The rules are in
/// <see cref="CrashChecker"/>; scripts/crash-soak.sh runs the same cycles by the thousand.
/// </summary>
public class CrashRecoveryTests
{
    private const int CyclesPerRun = 10;

    [Theory]
    [InlineData(DurabilityMode.Checkpoint, false, false)]
    [InlineData(DurabilityMode.Commit, false, false)]
    [InlineData(DurabilityMode.Checkpoint, true, false)]
    [InlineData(DurabilityMode.Commit, true, false)]
    [InlineData(DurabilityMode.Commit, true, true)]
    public async Task CrashedWorker_EveryCycle_RecoversWhatItsModePromises(DurabilityMode mode, bool powerCuts, bool writeAheadLogElsewhere)
    {
        using var temp = new TempDirectory();
        var checker = new CrashChecker(temp.Path, mode, seed: 20261124, powerCuts, writeAheadLogElsewhere: writeAheadLogElsewhere);

        await AssertEveryCycleKeepsItsPromisesAsync(checker, CyclesPerRun);
    }

    /// <summary>
    /// The disk fails under the running worker at a random moment: every writer must stop soon with
    /// <see cref="StoreFaultedException"/> (no hang, no other exception), and the store, recovered on a working disk,
    /// must hold everything acknowledged before the failure (<see cref="DiskFailure"/>).
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AWorkerWhoseDiskFails_StopsEveryWriterWithTheStoresFault_AndLosesNothingAcknowledged(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        var checker = new CrashChecker(temp.Path, mode, seed: 20261127, failingDisk: true);

        await AssertEveryCycleKeepsItsPromisesAsync(checker, cycles: 8);
    }

    /// <summary>The soak's default directory has a parent that does not exist yet; its first cycle once failed writing the file beside it.</summary>
    [Fact]
    public async Task TheChecker_RunsInADirectoryWhoseParentDoesNotExistYet()
    {
        using var temp = new TempDirectory();
        var checker = new CrashChecker(Path.Combine(temp.Path, "not-yet", "store"), DurabilityMode.Checkpoint, seed: 20261126);

        CycleReport report = await checker.RunCycleAsync(1);

        Assert.Empty(report.Violations);
    }

    /// <summary>The checker can fail: a disk that reports writes complete before they are durable loses acknowledged writes at a power cut, and is caught.</summary>
    [Fact]
    public async Task ADiskThatAcknowledgesWritesEarly_LosesAcknowledgedWritesAtAPowerCut_AndTheCheckerSaysSo()
    {
        using var temp = new TempDirectory();
        var checker = new CrashChecker(temp.Path, DurabilityMode.Commit, seed: 20261124, powerCuts: true, lyingDisk: true);
        var violations = new List<string>();

        for (int cycle = 1; cycle <= 20 && violations.Count == 0; cycle++)
        {
            violations.AddRange((await checker.RunCycleAsync(cycle)).Violations);
        }

        Assert.NotEmpty(violations);
    }

    /// <summary>Runs <paramref name="cycles"/> cycles, then checks every key; fails on any violation, or when no write was acknowledged at all.</summary>
    private static async Task AssertEveryCycleKeepsItsPromisesAsync(CrashChecker checker, int cycles)
    {
        var violations = new List<string>();
        int acknowledged = 0;
        for (int cycle = 1; cycle <= cycles; cycle++)
        {
            CycleReport report = await checker.RunCycleAsync(cycle);
            violations.AddRange(report.Violations);
            acknowledged += report.Acknowledged;
        }

        violations.AddRange(await checker.CheckEveryKeyAsync());
        Assert.True(violations.Count == 0, $"{violations.Count} violations:\n{string.Join("\n", violations)}");
        Assert.True(acknowledged > 0, "no write was acknowledged in any cycle, so nothing was checked");
    }
}
