using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Reporting;

/// <summary>Durable flushes per write in the report: shown for backends that count flushes, absent for the others.</summary>
[Collection(RunsCollection.Name)]
public class DurableFlushReportTests
{
    [Fact]
    public async Task WorkloadW_IssuesOnlyUpdates_AllOfThemInTheReport()
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--workload", "W", "--json", json, "--verify"]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        using JsonDocument document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        JsonElement root = document.RootElement;
        JsonElement update = Assert.Single(root.GetProperty("operations").EnumerateArray());
        Assert.Equal("update", update.GetProperty("type").GetString());
        long operations = root.GetProperty("run").GetProperty("operations").GetInt64();
        Assert.True(operations > 0);
        Assert.Equal(operations, update.GetProperty("count").GetInt64());

        // No read happened during the run: every read checked is one of the sweep's.
        JsonElement verification = root.GetProperty("verification");
        Assert.Equal(verification.GetProperty("sweepReads").GetInt64(), verification.GetProperty("readsChecked").GetInt64());
        Assert.Equal(0, verification.GetProperty("mismatches").GetInt64());
        Assert.Matches(@"workload\s+W \(write-only: 100% updates", run.Output);
    }

    [Theory]
    [InlineData("faster-commit")]
    [InlineData("typed-commit")]
    public async Task CommitMode_ReportsItsGroupCommits_DuringTheRun_PerWrite(string backend)
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", backend, "--workload", "W", "--json", json]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        using JsonDocument document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        JsonElement flushes = document.RootElement.GetProperty("durableFlushes");
        long count = flushes.GetProperty("flushes").GetInt64();
        long writes = flushes.GetProperty("writes").GetInt64();
        long updates = document.RootElement.GetProperty("operations").EnumerateArray().Single().GetProperty("count").GetInt64();
        Assert.True(count > 0, flushes.ToString());
        Assert.Equal(updates, writes);
        Assert.Equal((double)count / writes, flushes.GetProperty("flushesPerWrite").GetDouble(), 12);
        Assert.StartsWith("a write-ahead log group commit", flushes.GetProperty("note").GetString(), StringComparison.Ordinal);
        Assert.Matches(@"flushes\s+[1-9][\d,]* durable flushes in the run, [\d.]+ per write \([\d,]+ writes\)", run.Output);
    }

    [Fact]
    public async Task SqliteFull_ReportsOneFlushPerWrite_CountingTheRunPhaseOnly()
    {
        // The load committed 2,000 transactions too; had they been counted, flushes would exceed writes by 2,000.
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", "sqlite-full", "--workload", "A", "--json", json]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        using JsonDocument document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        JsonElement root = document.RootElement;
        JsonElement flushes = root.GetProperty("durableFlushes");
        long updates = root.GetProperty("operations").EnumerateArray().Single(type => type.GetProperty("type").GetString() == "update").GetProperty("count").GetInt64();
        Assert.True(updates > 0);
        Assert.Equal(updates, flushes.GetProperty("writes").GetInt64()); // Workload A's reads are not writes.
        Assert.Equal(updates, flushes.GetProperty("flushes").GetInt64());
        Assert.Equal(1.0, flushes.GetProperty("flushesPerWrite").GetDouble());
        Assert.Contains("1.0000 per write", run.Output, StringComparison.Ordinal);
        Assert.Contains("not fsyncs measured", run.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("typed")]
    [InlineData("faster")]
    [InlineData("sqlite")]
    [InlineData("memory")]
    public async Task BackendsThatCountNoFlushes_ReportNone(string backend)
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", backend, "--workload", "W", "--json", json]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        using JsonDocument document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        Assert.False(document.RootElement.TryGetProperty("durableFlushes", out _), document.RootElement.ToString());
        Assert.DoesNotContain("flush", run.Output, StringComparison.OrdinalIgnoreCase);
        Assert.Contains("bytes on disk", run.Output, StringComparison.Ordinal); // The rest of the report is there.
    }
}
