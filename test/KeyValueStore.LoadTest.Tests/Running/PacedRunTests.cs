using System;
using System.IO;
using System.Text.Json;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Running;

/// <summary>--rate: the workers issue no faster than the schedule, and the report says the rate and how late they issued (its parsing: <c>OptionParserTests</c>).</summary>
[Collection(RunsCollection.Name)]
public class PacedRunTests
{
    [Fact]
    public async Task APacedRun_IssuesNoFasterThanItsRate_AndReportsItsLag()
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", "memory", "--rate", "2000", "--seconds", "2", "--json", json]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.Contains("paced at 2,000 ops/s", run.Output, StringComparison.Ordinal);
        Assert.Contains("issue lag", run.Output, StringComparison.Ordinal);
        using JsonDocument report = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        JsonElement root = report.RootElement;
        long operations = root.GetProperty("run").GetProperty("operations").GetInt64();
        double seconds = root.GetProperty("run").GetProperty("seconds").GetDouble();

        // A start time is handed out only once due: one at the start, then one every 0.5 ms. Unpaced, the
        // dictionary does millions a second.
        Assert.InRange(operations, 1, (long)(2000 * seconds) + 1);
        Assert.True(operations >= 2000 * seconds / 2, $"{operations:N0} operations in {seconds:0.00} s: the schedule held the workers back");
        Assert.Equal(2000, root.GetProperty("settings").GetProperty("rate").GetInt64());
        JsonElement pacing = root.GetProperty("pacing");
        Assert.Equal(2000, pacing.GetProperty("targetOperationsPerSecond").GetInt64());
        Assert.True(pacing.GetProperty("issueLagMicroseconds").GetProperty("max").GetDouble() >= 0);
    }

    [Fact]
    public async Task AnUnpacedRun_ReportsNoPacing()
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", "memory", "--json", json]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.DoesNotContain("issue lag", run.Output, StringComparison.Ordinal);
        using JsonDocument report = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        Assert.False(report.RootElement.TryGetProperty("pacing", out _));
        Assert.Equal(JsonValueKind.Null, report.RootElement.GetProperty("settings").GetProperty("rate").ValueKind);
    }
}
