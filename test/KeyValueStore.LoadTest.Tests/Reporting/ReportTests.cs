using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Reporting;

/// <summary>What a finished run prints and writes: the text report, the --json file, the progress lines, and nothing left on disk.</summary>
[Collection(RunsCollection.Name)]
public class ReportTests
{
    /// <summary>Compaction's accounting, every second of the run and at its end; with --compaction off, no pass runs and the files only grow.</summary>
    [Fact]
    public async Task Json_CarriesCompactionsAccounting_EverySecondAndAtTheEnd_AndNoPassRunsWithCompactionOff()
    {
        using var temp = new TempDirectory();
        string on = Path.Combine(temp.Path, "on.json");
        string off = Path.Combine(temp.Path, "off.json");

        // 2,000 records of 256 bytes in 64 KB of log memory: the log reaches the compaction threshold at once.
        string[] small = ["--workload", "W", "--memory-size", "64k", "--seconds", "3", "--verify"];
        CliRun compacting = await CliRun.SmallAsync(temp.Path, [.. small, "--json", on]);
        CliRun growing = await CliRun.SmallAsync(temp.Path, [.. small, "--compaction", "off", "--json", off]);

        Assert.True(compacting.ExitCode == 0, compacting.Errors);
        Assert.True(growing.ExitCode == 0, growing.Errors);
        using JsonDocument withCompaction = JsonDocument.Parse(await File.ReadAllTextAsync(on));
        JsonElement compaction = withCompaction.RootElement.GetProperty("compaction");
        JsonElement end = compaction.GetProperty("end");
        Assert.True(end.GetProperty("passes").GetInt64() > 0, end.ToString());
        Assert.True(end.GetProperty("logBytesReclaimed").GetInt64() > 0, end.ToString());
        Assert.True(end.GetProperty("liveBytesEstimate").GetInt64() > 0, end.ToString());
        Assert.True(end.GetProperty("writersHeldMs").GetDouble() >= end.GetProperty("longestWriterHoldMs").GetDouble(), end.ToString());
        JsonElement[] seconds = compaction.GetProperty("everySecond").EnumerateArray().ToArray();
        Assert.NotEmpty(seconds);
        Assert.All(seconds, sample => Assert.True(sample.GetProperty("bytesOnDisk").GetInt64() > 0, sample.ToString()));

        // The threshold after the last pass: at least twice the live estimate, the policy's rule, since the store's
        // minimum is far below this small log.
        Assert.True(end.GetProperty("thresholdBytes").GetInt64() >= 2 * end.GetProperty("liveBytesEstimate").GetInt64(), end.ToString());
        Assert.True(withCompaction.RootElement.GetProperty("settings").GetProperty("compaction").GetBoolean());
        Assert.Contains("compaction     disk", compacting.Output);

        using JsonDocument withoutCompaction = JsonDocument.Parse(await File.ReadAllTextAsync(off));
        Assert.False(withoutCompaction.RootElement.GetProperty("settings").GetProperty("compaction").GetBoolean());
        JsonElement none = withoutCompaction.RootElement.GetProperty("compaction").GetProperty("end");
        Assert.Equal(0, none.GetProperty("passes").GetInt64());
        Assert.Equal(JsonValueKind.Null, none.GetProperty("liveBytesEstimate").ValueKind);
        Assert.Contains("off (--compaction off)", growing.Output);
        Assert.DoesNotContain("compaction     disk", growing.Output);

        // Nothing given back, and the files hold the whole log but what is still in memory: a segment's file is made when
        // the first page in it is flushed, so a tail just past a segment's start may have no file yet. (Comparing the
        // two runs' file sizes failed on a loaded CI machine: the runs write at different rates, and the files grow a
        // whole segment at a time.)
        Assert.Equal(0, none.GetProperty("logBytesReclaimed").GetInt64());
        Assert.Equal(0, none.GetProperty("diskBytesFreed").GetInt64());
        long logBytes = none.GetProperty("logBytes").GetInt64();
        long inMemory = withoutCompaction.RootElement.GetProperty("settings").GetProperty("memorySizeBytes").GetInt64();
        long onDisk = withoutCompaction.RootElement.GetProperty("bytesOnDisk").GetInt64();
        Assert.True(logBytes > 0, none.ToString());
        Assert.True(onDisk + inMemory >= logBytes, $"the files without compaction ({onDisk:N0} bytes) should hold the whole log ({logBytes:N0} bytes) but its {inMemory:N0} bytes in memory");
    }

    [Fact]
    public async Task Json_HoldsTheSameResults_ForScripts()
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--workload", "F", "--json", json, "--verify"]);

        Assert.True(run.ExitCode == 0, run.Errors);
        using JsonDocument document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        JsonElement root = document.RootElement;

        JsonElement settings = root.GetProperty("settings");
        Assert.Equal("typed", settings.GetProperty("backend").GetString());
        Assert.Equal("F", settings.GetProperty("workload").GetString());
        Assert.Equal("zipfian", settings.GetProperty("distribution").GetString());
        Assert.Equal(4, settings.GetProperty("threads").GetInt32());
        Assert.Equal(1, settings.GetProperty("seconds").GetInt32());
        Assert.Equal(2000, settings.GetProperty("records").GetInt64());
        Assert.Equal(256, settings.GetProperty("valueSize").GetInt32());
        Assert.Equal(64L << 20, settings.GetProperty("memorySizeBytes").GetInt64());
        Assert.True(settings.GetProperty("verify").GetBoolean());

        Assert.Equal(2000, root.GetProperty("load").GetProperty("operations").GetInt64());
        JsonElement runPhase = root.GetProperty("run");
        long operations = runPhase.GetProperty("operations").GetInt64();
        Assert.True(operations > 0);
        Assert.True(runPhase.GetProperty("operationsPerSecond").GetDouble() > 0);
        JsonElement perThread = runPhase.GetProperty("perThread");
        Assert.Equal(4, perThread.GetProperty("operations").GetArrayLength());
        Assert.Equal(operations, perThread.GetProperty("operations").EnumerateArray().Sum(count => count.GetInt64()));
        Assert.True(perThread.GetProperty("minOperationsPerSecond").GetDouble() <= perThread.GetProperty("maxOperationsPerSecond").GetDouble());
        long allocated = runPhase.GetProperty("allocatedBytes").GetInt64();
        Assert.True(allocated > 0, "the run's workers allocate at least their latency samples");
        Assert.Equal((double)allocated / operations, runPhase.GetProperty("allocatedBytesPerOperation").GetDouble(), precision: 6);

        JsonElement[] types = root.GetProperty("operations").EnumerateArray().ToArray();
        Assert.Equal(["read", "read-modify-write"], types.Select(type => type.GetProperty("type").GetString()));
        Assert.Equal(operations, types.Sum(type => type.GetProperty("count").GetInt64()));
        foreach (JsonElement type in types)
        {
            JsonElement latency = type.GetProperty("latencyMicroseconds");
            double p50 = latency.GetProperty("p50").GetDouble();
            double p99 = latency.GetProperty("p99").GetDouble();
            double p999 = latency.GetProperty("p999").GetDouble();
            double max = latency.GetProperty("max").GetDouble();
            Assert.True(p50 > 0 && p50 <= p99 && p99 <= p999 && p999 <= max, latency.ToString());
            Assert.Equal(0, type.GetProperty("notFound").GetInt64());
        }

        Assert.True(root.GetProperty("bytesOnDisk").GetInt64() >= 0);
        Assert.True(root.GetProperty("memory").GetProperty("peakWorkingSetBytes").GetInt64() > 0);
        JsonElement verification = root.GetProperty("verification");
        Assert.True(verification.GetProperty("enabled").GetBoolean());
        Assert.True(verification.GetProperty("readsChecked").GetInt64() > 0);
        Assert.Equal(0, verification.GetProperty("mismatches").GetInt64());
        Assert.Equal(0, verification.GetProperty("examples").GetArrayLength());
        Assert.True(root.GetProperty("machine").GetProperty("processorCount").GetInt32() > 0);
        Assert.Equal(System.Runtime.GCSettings.IsServerGC, root.GetProperty("machine").GetProperty("serverGarbageCollector").GetBoolean());
    }

    [Fact]
    public async Task TheTextReport_ShowsThroughputLatencyDiskAndMemory()
    {
        using var temp = new TempDirectory();

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", "sqlite", "--workload", "D"]);

        Assert.True(run.ExitCode == 0, run.Errors);
        Assert.Matches(@"load\s+2,000 records in [\d.]+ s, [\d,]+ records/s", run.Output);
        Assert.Matches(@"run\s+[\d,]+ operations in [\d.]+ s, [\d,]+ ops/s", run.Output);
        Assert.Matches(@"per thread\s+[\d,]+ ops/s mean, [\d,]+ min, [\d,]+ max", run.Output);
        Assert.Matches(@"allocated\s+[\d.]+ [KMG]?i?B in the run, [\d,]+ B per operation", run.Output);
        Assert.Contains("p50 us", run.Output, StringComparison.Ordinal);
        Assert.Contains("p99.9 us", run.Output, StringComparison.Ordinal);
        Assert.Matches(@"\n  read\s+[\d,]+", run.Output);
        Assert.Matches(@"\n  insert\s+[\d,]+", run.Output);
        Assert.Matches(@"bytes on disk\s+[1-9][\d,]* \(", run.Output); // SQLite's database file.
        Assert.Matches(@"peak memory\s+[\d.]+ MiB peak working set", run.Output);
    }

    [Fact]
    public async Task Progress_GoesToStderr_ForTheLoadAndTheRun_OneLinePerUpdateWhenNotATerminal()
    {
        using var temp = new TempDirectory();

        // Three seconds leave room for the one-second updates even on a machine too busy to keep time well.
        CliRun run = await CliRun.SmallAsync(temp.Path, ["--seconds", "3"]);

        string[] lines = run.Errors.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Contains(lines, line => line.StartsWith("load ", StringComparison.Ordinal) && line.Contains("2,000 / 2,000 records", StringComparison.Ordinal));
        Assert.Contains(lines, line => line.StartsWith("run ", StringComparison.Ordinal) && line.Contains("ops/s now", StringComparison.Ordinal));
        Assert.Contains(lines, line => line.StartsWith("run ", StringComparison.Ordinal) && line.Contains("ops/s overall", StringComparison.Ordinal));
        Assert.DoesNotContain('\r', run.Errors);
    }

    [Theory]
    [InlineData("typed")]
    [InlineData("typed-commit")]
    [InlineData("faster")]
    [InlineData("sqlite")]
    public async Task TheRunDirectory_IsRemovedAfterwards(string backend)
    {
        using var temp = new TempDirectory();

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", backend]);

        Assert.Equal(0, run.ExitCode);
        Assert.Matches("directory +" + System.Text.RegularExpressions.Regex.Escape(temp.Path), run.Output);
        Assert.Empty(Directory.GetFileSystemEntries(temp.Path));
    }

    [Fact]
    public async Task TheRunsGcPauses_AreReported_WithItsFullCollections()
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");

        // Workload C only reads, and only in the run phase: the backend's one forced full collection falls in it.
        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", "memory", "--workload", "C", "--json", json], _ => new CollectingBackend());

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.Contains("gc pauses", run.Output, StringComparison.Ordinal);
        using JsonDocument document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        JsonElement runPhase = document.RootElement.GetProperty("run");
        Assert.True(runPhase.GetProperty("gen2Collections").GetInt32() >= 1, runPhase.ToString());
        Assert.True(runPhase.GetProperty("gcPauseMilliseconds").GetDouble() > 0, runPhase.ToString());
    }
}
