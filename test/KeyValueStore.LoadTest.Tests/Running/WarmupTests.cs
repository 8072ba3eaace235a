using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Running;

/// <summary>--warmup: the workload runs first for that long, and the report holds the run phase only.</summary>
[Collection(RunsCollection.Name)]
public class WarmupTests
{
    [Theory]
    [InlineData("0", 0)]
    [InlineData("5", 5)]
    [InlineData("86400", 86_400)]
    public void Warmup_IsWholeSeconds_AndNoneByDefault(string text, int expected)
    {
        Assert.Equal(expected, OptionParser.Parse(["--warmup", text]).WarmupSeconds);
        Assert.Equal(0, OptionParser.Parse([]).WarmupSeconds);
    }

    [Theory]
    [InlineData("-1")]
    [InlineData("86401")]
    [InlineData("1.5")]
    public void Warmup_OutOfRange_IsRefused_SayingTheRange(string text)
    {
        var refused = Assert.Throws<InvalidOptionException>(() => OptionParser.Parse(["--warmup", text]));
        Assert.Contains("--warmup", refused.Message, System.StringComparison.Ordinal);
        Assert.Contains(OptionRanges.WarmupSeconds, refused.Message, System.StringComparison.Ordinal);
    }

    [Fact]
    public async Task AWarmedUpRun_ReportsTheRunPhaseOnly_EveryOperationCountedOnce()
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", "typed", "--warmup", "1", "--verify", "--json", json]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.Contains("1 s of the workload before the run, not measured (--warmup)", run.Output, System.StringComparison.Ordinal);
        using JsonDocument report = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        long runOperations = report.RootElement.GetProperty("run").GetProperty("operations").GetInt64();
        long recorded = report.RootElement.GetProperty("operations").EnumerateArray().Sum(operation => operation.GetProperty("count").GetInt64());
        Assert.True(runOperations > 0);
        Assert.Equal(runOperations, recorded);
        Assert.Equal(1, report.RootElement.GetProperty("settings").GetProperty("warmupSeconds").GetInt32());
    }
}
