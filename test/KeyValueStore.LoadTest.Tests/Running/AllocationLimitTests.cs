using System;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Running;

/// <summary>--max-allocated-per-op: a run that allocates more per operation than allowed fails, saying how much; CI keeps allocation from creeping back with it (its parsing: <c>OptionParserTests</c>).</summary>
[Collection(RunsCollection.Name)]
public class AllocationLimitTests
{
    [Fact]
    public async Task ARunOverItsLimit_ExitsWith4_SayingWhatItAllocated_AfterItsReport()
    {
        using var temp = new TempDirectory();

        // The dictionary backend allocates per operation (a boxed value per update, about 160 B in CI's runs).
        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", "memory", "--max-allocated-per-op", "0"]);

        Assert.True(run.ExitCode == ExitCodes.AllocationOverLimit, $"exit code {run.ExitCode}: {run.Errors}");
        Assert.Contains("B per operation, over --max-allocated-per-op 0", run.Errors, StringComparison.Ordinal);
        Assert.Contains("allocated", run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ARunWithinItsLimit_ExitsWith0()
    {
        using var temp = new TempDirectory();

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", "memory", "--max-allocated-per-op", "1000000"]);

        Assert.True(run.ExitCode == ExitCodes.Ok, $"exit code {run.ExitCode}: {run.Errors}");
    }
}
