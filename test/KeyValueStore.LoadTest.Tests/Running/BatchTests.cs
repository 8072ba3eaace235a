using System;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Running;

/// <summary>--batch-size on real stores: updates and inserts go in atomic batches of exactly N, reads stay single, and the report counts both.</summary>
[Collection(RunsCollection.Name)]
public class BatchTests
{
    private const int Records = 2000;
    private const int BatchSize = 25;

    [Theory]
    [InlineData("typed", "W")]
    [InlineData("typed", "D")]
    [InlineData("faster", "W")]
    [InlineData("faster", "D")]
    [InlineData("sqlite", "W")]
    [InlineData("sqlite", "A")]
    [InlineData("garnet", "W")]
    public async Task ABatchRun_WritesEveryUpdateAndInsert_InBatchesOfExactlyN_AndReportsThem(string backend, string workload)
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");
        BatchCountingBackend? counting = null;

        CliRun run = await CliRun.SmallAsync(
            temp.Path,
            ["--backend", backend, "--workload", workload, "--batch-size", $"{BatchSize}", "--json", json],
            context => counting = new BatchCountingBackend(BackendCatalog.Find(backend)!.Open(context)));

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.NotEmpty(counting!.BatchSizes);
        Assert.All(counting.BatchSizes, size => Assert.Equal(BatchSize, size));
        Assert.Equal(Records, counting.Upserts); // The load's upserts, one per record; the run wrote nothing on its own.

        using JsonDocument document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        JsonElement root = document.RootElement;
        Assert.Equal(BatchSize, root.GetProperty("settings").GetProperty("batchSize").GetInt32());
        JsonElement[] operations = root.GetProperty("operations").EnumerateArray().ToArray();
        long Count(string type) => operations.Where(operation => operation.GetProperty("type").GetString() == type).Sum(operation => operation.GetProperty("count").GetInt64());
        long batches = counting.BatchSizes.Count;
        Assert.Equal(batches, Count("batch"));
        Assert.Equal(counting.BatchedWrites, Count("update") + Count("insert"));
        Assert.Equal(root.GetProperty("run").GetProperty("operations").GetInt64(), Count("read") + Count("update") + Count("insert"));
        if (workload != "W")
        {
            Assert.True(Count("read") > 0, "reads stay single operations, and still run");
        }

        JsonElement summary = root.GetProperty("batches");
        double seconds = root.GetProperty("run").GetProperty("seconds").GetDouble();
        Assert.Equal(BatchSize, summary.GetProperty("batchSize").GetInt32());
        Assert.Equal(batches, summary.GetProperty("batches").GetInt64());
        Assert.Equal(counting.BatchedWrites, summary.GetProperty("writes").GetInt64());
        Assert.Equal(batches / seconds, summary.GetProperty("batchesPerSecond").GetDouble(), 6);
        Assert.Equal(counting.BatchedWrites / seconds, summary.GetProperty("writesPerSecond").GetDouble(), 6);
        JsonElement latency = summary.GetProperty("latencyMicroseconds");
        Assert.True(latency.GetProperty("p50").GetDouble() > 0 && latency.GetProperty("p50").GetDouble() <= latency.GetProperty("p99").GetDouble(), latency.ToString());

        Assert.Matches(@"batch size\s+25 updates and inserts per atomic batch", run.Output);
        Assert.Matches(@"batches\s+[\d,]+ batches of 25 writes, [\d,]+ batches/s, [\d,]+ writes/s; batch p50 [\d.]+ us, p99 [\d.]+ us", run.Output);
        Assert.Matches(@"\n  batch\s+[\d,]+", run.Output);
    }

    [Fact]
    public async Task BatchSize1_WritesEachUpdateOnItsOwn_AndReportsNoBatches()
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "report.json");
        BatchCountingBackend? counting = null;

        CliRun run = await CliRun.SmallAsync(
            temp.Path,
            ["--workload", "W", "--batch-size", "1", "--json", json],
            context => counting = new BatchCountingBackend(BackendCatalog.Find("faster")!.Open(context)));

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.Empty(counting!.BatchSizes);
        using JsonDocument document = JsonDocument.Parse(await File.ReadAllTextAsync(json));
        JsonElement root = document.RootElement;
        JsonElement update = Assert.Single(root.GetProperty("operations").EnumerateArray());
        Assert.Equal(counting.Upserts - Records, update.GetProperty("count").GetInt64());
        Assert.False(root.TryGetProperty("batches", out _));
        Assert.DoesNotContain("batch", run.Output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("typed", "W")]
    [InlineData("typed", "A")]
    [InlineData("typed-checkpoint", "D")]
    [InlineData("typed-commit", "W")]
    [InlineData("faster", "W")]
    [InlineData("faster", "A")]
    [InlineData("faster", "D")]
    [InlineData("faster-commit", "W")]
    [InlineData("sqlite", "D")]
    [InlineData("sqlite-full", "W")]
    [InlineData("memory", "A")]
    [InlineData("litedb", "W")]
    [InlineData("rocksdb", "A")]
    [InlineData("rocksdb-sync", "W")]
    [InlineData("garnet", "W")]
    [InlineData("garnet", "D")]
    public async Task Verify_WithBatches_ChecksEveryRead_AndFindsNoMismatch(string backend, string workload)
    {
        // Every write of a batch gets its own version in the model: were one missed, the sweep would find
        // versions the model never issued.
        using var temp = new TempDirectory();

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", backend, "--workload", workload, "--batch-size", $"{BatchSize}", "--verify"]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.Matches(@"batches\s+[1-9][\d,]* batches of 25 writes", run.Output);
        Assert.Matches(@"verify\s+[\d,]+ reads checked \(sweep: [\d,]+\), 0 mismatches", run.Output);
    }

    [Theory]
    [InlineData("typed")]
    [InlineData("faster")]
    [InlineData("sqlite")]
    public async Task Verify_WithBatches_CatchesAWriteLostFromABatch(string backend)
    {
        using var temp = new TempDirectory();
        LossyBatchBackend? lossy = null;

        CliRun run = await CliRun.SmallAsync(
            temp.Path,
            ["--backend", backend, "--workload", "W", "--batch-size", $"{BatchSize}", "--verify"],
            context => lossy = new LossyBatchBackend(BackendCatalog.Find(backend)!.Open(context)));

        Assert.True(lossy!.Lost, "no write was lost, so this test proves nothing");
        Assert.True(run.ExitCode == 1, run.Output + run.Errors);
        Assert.Matches(@"verify\s+[\d,]+ reads checked \(sweep: [\d,]+\), [1-9][\d,]* mismatches", run.Output);
        Assert.Matches(@"sweep read of record \d+: expected version \d+, got version \d+", run.Output);
    }

    [Fact]
    public async Task ABackendThatCannotWriteBatches_IsBadInput_WithBatchSizeAbove1()
    {
        using var temp = new TempDirectory();
        SingleWritesBackend? single = null;

        CliRun run = await CliRun.SmallAsync(
            temp.Path,
            ["--workload", "W", "--batch-size", "10"],
            context => single = new SingleWritesBackend(BackendCatalog.Find("faster")!.Open(context)));

        Assert.Equal(2, run.ExitCode);
        Assert.StartsWith("error: --batch-size 10 needs a backend that writes atomic batches", run.Errors, StringComparison.Ordinal);
        Assert.Contains("Usage:", run.Errors, StringComparison.Ordinal);
        Assert.DoesNotContain("records/s", run.Errors, StringComparison.Ordinal); // No progress line: the load never started.
        Assert.Equal(string.Empty, run.Output);
        Assert.Equal(0, single!.Upserts);
        Assert.Empty(Directory.GetFileSystemEntries(temp.Path)); // The run's directory is removed all the same.
    }

    [Fact]
    public async Task ABackendThatCannotWriteBatches_RunsWithBatchSize1()
    {
        // The control for the test above: the backend runs; only the batches are refused.
        using var temp = new TempDirectory();

        CliRun run = await CliRun.SmallAsync(
            temp.Path,
            ["--workload", "W", "--batch-size", "1"],
            context => new SingleWritesBackend(BackendCatalog.Find("faster")!.Open(context)));

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
    }
}
