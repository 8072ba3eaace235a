using System;
using System.IO;
using System.Text.Json;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Running;

/// <summary>
/// --backend redis as a user runs it, against a Garnet server the test starts: every read checked, the endpoint in the
/// report, and nothing of the run left on the server.
/// </summary>
[Collection(RunsCollection.Name)]
public class RedisRunTests : IClassFixture<GarnetServerFixture>
{
    private readonly GarnetServerFixture _garnet;

    public RedisRunTests(GarnetServerFixture garnet)
    {
        _garnet = garnet;
    }

    [Theory]
    [InlineData("A", "1")]
    [InlineData("D", "1")]
    [InlineData("W", "25")]
    public async Task ARun_AgainstAServerAtTheEndpoint_FindsNoMismatch_ReportsTheEndpoint_AndLeavesNoKeys(string workload, string batchSize)
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        CliRun run = await CliRun.SmallAsync(
            temp.Path,
            ["--backend", "redis", "--endpoint", _garnet.Endpoint, "--workload", workload, "--batch-size", batchSize, "--verify", "--json", json]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.Matches(@"verify\s+[\d,]+ reads checked \(sweep: [\d,]+\), 0 mismatches", run.Output);
        Assert.Contains($"endpoint       {_garnet.Endpoint} (--endpoint)", run.Output, StringComparison.Ordinal);
        Assert.Matches(@"bytes on disk\s+0 ", run.Output);
        using (JsonDocument document = JsonDocument.Parse(await File.ReadAllTextAsync(json)))
        {
            JsonElement settings = document.RootElement.GetProperty("settings");
            Assert.Equal("redis", settings.GetProperty("backend").GetString());
            Assert.Equal(_garnet.Endpoint, settings.GetProperty("endpoint").GetString());
        }

        Assert.Empty(await _garnet.KeysAsync("*"));
    }

    [Fact]
    public async Task TheEndpoint_IsInNoReportOfAnotherBackend()
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", "memory", "--json", json]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.DoesNotContain("endpoint", run.Output, StringComparison.Ordinal);
        using JsonDocument document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        Assert.Equal(JsonValueKind.Null, document.RootElement.GetProperty("settings").GetProperty("endpoint").ValueKind);
    }
}
