using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.CrashHarness;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// The crash soak's own rules: it stops at its first violating cycle, keeping one copy of the files that cycle
/// recovered (it once went on, copying half a gigabyte per cycle until the disk was full), and it refuses an argument
/// it does not know (an ignored <c>--help</c> once started a thousand-cycle soak).
/// </summary>
public class CrashSoakTests
{
    [Fact]
    public async Task ASoak_StopsAtItsFirstViolatingCycle_AndKeepsOneCopyOfTheFilesItRecovered()
    {
        using var temp = new TempDirectory();
        string store = Path.Combine(temp.Path, "store");
        Directory.CreateDirectory(store);
        File.WriteAllText(Path.Combine(store, "store.log.0"), "segment");
        var ran = new List<int>();
        Task<CycleReport> RunCycle(int cycle)
        {
            ran.Add(cycle);
            IReadOnlyList<string> violations = cycle >= 2 ? [$"cycle {cycle}: a key lost"] : [];
            return Task.FromResult(new CycleReport(cycle, false, 10, 0, (0, 0, 0), violations));
        }

        using var output = new StringWriter();
        using var errors = new StringWriter();
        int found = await new CrashSoak(RunCycle, new CycleEvidence(store), output, errors).RunAsync(10, "Commit, SIGKILL", powerCuts: false);

        Assert.Equal(1, found);
        Assert.Equal([1, 2], ran);
        string[] kept = Directory.GetDirectories(temp.Path).Select(Path.GetFileName).Where(name => name != "store").ToArray()!;
        Assert.Equal(["store.violation-cycle-2"], kept);
        Assert.True(File.Exists(Path.Combine(temp.Path, "store.violation-cycle-2", "store.log.0")), "the violating cycle's files were not kept");
        Assert.Contains("cycle 2: a key lost", errors.ToString());
        Assert.Contains("2/10 cycles", output.ToString());
    }

    [Fact]
    public async Task ASoakWithoutViolations_RunsEveryCycle()
    {
        using var temp = new TempDirectory();
        int ran = 0;
        Task<CycleReport> RunCycle(int cycle)
        {
            ran++;
            return Task.FromResult(new CycleReport(cycle, false, 1, 0, (0, 0, 0), []));
        }

        int found = await new CrashSoak(RunCycle, new CycleEvidence(Path.Combine(temp.Path, "store")), TextWriter.Null, TextWriter.Null).RunAsync(30, "Checkpoint, SIGKILL", powerCuts: false);

        Assert.Equal(0, found);
        Assert.Equal(30, ran);
    }

    [Theory]
    [InlineData("--help", "--help")]
    [InlineData("--cycles 5 --mode Commit --verbose", "--verbose")]
    [InlineData("--power-cut --seed", "--seed (without its value)")]
    [InlineData("--cycles 5 --mode Checkpoint --power-cut --lying-disk --wal-elsewhere --seed 7 --dir /tmp/x", null)]
    [InlineData("--failing-disk", null)]
    public void TheSoaksArguments_NameTheFirstOneItDoesNotKnow(string arguments, string? unknown)
    {
        string[] args = ["soak", .. arguments.Split(' ')];

        Assert.Equal(unknown, SoakArguments.FirstUnknown(args));
    }
}
