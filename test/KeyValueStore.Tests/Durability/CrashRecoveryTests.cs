using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.CrashHarness;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// SIGKILL at random moments (while writing, checkpointing, compacting, and while recovering), then recovery checked
/// against what the killed process acknowledged. The rules are in <see cref="CrashChecker"/>; scripts/crash-soak.sh runs
/// the same cycles by the thousand.
/// </summary>
public class CrashRecoveryTests
{
    private const int CyclesPerMode = 12;

    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task KilledWorker_EveryCycle_RecoversWhatItsModePromises(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        var checker = new CrashChecker(temp.Path, mode, seed: 20261121);
        var violations = new List<string>();
        int acknowledged = 0;

        for (int cycle = 1; cycle <= CyclesPerMode; cycle++)
        {
            CycleReport report = await checker.RunCycleAsync(cycle);
            violations.AddRange(report.Violations);
            acknowledged += report.Acknowledged;
        }

        Assert.Empty(violations);
        Assert.True(acknowledged > 0, "no write was acknowledged in any cycle, so nothing was checked");
    }
}
