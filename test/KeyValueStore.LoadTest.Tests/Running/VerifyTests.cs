using System;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Running;

/// <summary>--verify on real stores: silent when the store is right, loud when one read or write is wrong.</summary>
[Collection(RunsCollection.Name)]
public class VerifyTests
{
    public static TheoryData<string, string> BackendsAndWorkloads => new()
    {
        { "typed", "A" }, { "typed", "B" }, { "typed", "C" }, { "typed", "D" }, { "typed", "F" }, { "typed", "W" },
        { "typed-checkpoint", "A" }, { "typed-commit", "W" },
        { "faster", "A" }, { "faster", "B" }, { "faster", "C" }, { "faster", "D" }, { "faster", "F" }, { "faster", "W" },
        { "faster-commit", "W" },
        { "memory", "A" }, { "memory", "D" }, { "memory", "F" }, { "memory", "W" },
        { "sqlite", "A" }, { "sqlite", "D" }, { "sqlite", "F" },
        { "sqlite-full", "W" },
        { "litedb", "A" }, { "rocksdb", "A" }, { "rocksdb", "D" }, { "rocksdb-sync", "W" }, { "zonetree", "A" }, { "zonetree", "D" },
        { "raw-faster", "A" }, { "raw-faster", "D" },
        { "garnet", "A" }, { "garnet", "D" }, { "garnet", "F" },
    };

    [Theory]
    [MemberData(nameof(BackendsAndWorkloads))]
    public async Task ACleanRun_ChecksReads_AndFindsNoMismatch(string backend, string workload)
    {
        using var temp = new TempDirectory();

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", backend, "--workload", workload, "--verify"]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.Matches(@"verify\s+[\d,]+ reads checked \(sweep: [\d,]+\), 0 mismatches", run.Output);
    }

    [Theory]
    [InlineData("typed")]
    [InlineData("faster")]
    [InlineData("raw-faster")]
    public async Task ACleanRun_OnAFasterStoreMostlyOnDisk_FindsNoMismatch(string backend)
    {
        // 64 KB of log memory against 2,000 records of 1 KB: most reads go to the segment files.
        using var temp = new TempDirectory();

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", backend, "--memory-size", "64k", "--value-size", "1k", "--verify"]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.Contains(" 0 mismatches", run.Output, StringComparison.Ordinal);
        Assert.Matches(@"bytes on disk\s+[1-9][\d,]* ", run.Output);
    }

    [Theory]
    [InlineData("typed")]
    [InlineData("sqlite")]
    public async Task ACleanRunOfCompressibleValues_OnAStoreMostlyOnDisk_FindsNoMismatch(string backend)
    {
        // 1 KB values, so the typed store compresses them (its threshold), and reads of them come from the files.
        using var temp = new TempDirectory();

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", backend, "--memory-size", "64k", "--value-size", "1k", "--value-fill", "compressible", "--verify"]);

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.Contains("1,024-byte values (compressible filler)", run.Output, StringComparison.Ordinal);
        Assert.Matches(@"verify\s+[\d,]+ reads checked \(sweep: [\d,]+\), 0 mismatches", run.Output);
        Assert.Matches(@"bytes on disk\s+[1-9][\d,]* ", run.Output);
    }

    [Theory]
    [InlineData("typed", Fault.CorruptRead, "with corrupted bytes")]
    [InlineData("typed", Fault.LostWrite, "got version")]
    [InlineData("faster", Fault.CorruptRead, "with corrupted bytes")]
    [InlineData("faster", Fault.MissingRead, "got not found")]
    [InlineData("faster", Fault.LostWrite, "got version")]
    [InlineData("sqlite", Fault.CorruptRead, "with corrupted bytes")]
    [InlineData("memory", Fault.LostWrite, "got version")]
    [InlineData("rocksdb", Fault.LostWrite, "got version")]
    [InlineData("zonetree", Fault.CorruptRead, "with corrupted bytes")]
    [InlineData("raw-faster", Fault.MissingRead, "got not found")]
    public async Task OneWrongReadOrWrite_IsCaught_Reported_AndExitsWith1(string backend, Fault fault, string expectedReport)
    {
        using var temp = new TempDirectory();
        FaultyBackend? faulty = null;
        Func<BackendContext, ILoadTestBackend> open = context =>
            faulty = new FaultyBackend(BackendCatalog.Find(backend)!.Open(context), fault, context.Records);

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", backend, "--verify"], open);

        Assert.True(faulty!.Injected, "the fault was never injected, so this test proves nothing");
        Assert.True(run.ExitCode == 1, run.Output + run.Errors);
        Assert.Matches(@"verify\s+[\d,]+ reads checked \(sweep: 3,000\), [1-9][\d,]* mismatches", run.Output);
        Assert.Contains(expectedReport, run.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task WithoutVerify_TheSameFault_GoesUnnoticed()
    {
        // The control for the test above: it is --verify that catches the fault, not something else.
        using var temp = new TempDirectory();
        FaultyBackend? faulty = null;

        CliRun run = await CliRun.SmallAsync(temp.Path, [], context => faulty = new FaultyBackend(new MemoryBackend(), Fault.CorruptRead, context.Records));

        Assert.True(faulty!.Injected);
        Assert.Equal(0, run.ExitCode);
        Assert.Contains("verify         off", run.Output, StringComparison.Ordinal);
    }
}
