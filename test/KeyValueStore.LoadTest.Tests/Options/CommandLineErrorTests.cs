using System.IO;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Options;

/// <summary>What a user sees for bad input: the message and the usage on stderr, exit code 2, nothing run.</summary>
public class CommandLineErrorTests
{
    [Theory]
    [InlineData("--threads", "0")]
    [InlineData("--workload", "E")]
    [InlineData("--nonsense", "1")]
    [InlineData("--batch-size", "0")]
    public async Task BadInput_PrintsTheErrorAndTheUsage_AndExitsWith2(string option, string value)
    {
        CliRun run = await CliRun.RunAsync([option, value]);

        Assert.Equal(2, run.ExitCode);
        Assert.StartsWith("error: ", run.Errors, System.StringComparison.Ordinal);
        Assert.Contains(option, run.Errors, System.StringComparison.Ordinal);
        Assert.Contains("Usage: dotnet run -c Release --project perf/KeyValueStore.LoadTest", run.Errors, System.StringComparison.Ordinal);
        Assert.Equal(string.Empty, run.Output);
    }

    [Fact]
    public async Task Help_PrintsTheUsageWithEveryOption_AndExitsWith0()
    {
        CliRun run = await CliRun.RunAsync(["--help"]);

        Assert.Equal(0, run.ExitCode);
        foreach (string option in new[] { "--threads", "--seconds", "--records", "--value-size", "--value-fill", "--workload", "--distribution", "--backend", "--memory-size", "--dir", "--json", "--verify", "--seed", "--batch-size", "--endpoint", "--rate", "--max-allocated-per-op", "--help" })
        {
            Assert.Contains(option, run.Output, System.StringComparison.Ordinal);
        }

        Assert.Equal(string.Empty, run.Errors);
    }

    [Fact]
    public async Task TheRedisBackend_WithoutAnEndpoint_IsBadInput_SayingWhatToGive_BeforeAnythingRuns()
    {
        using var temp = new TempDirectory();

        CliRun run = await CliRun.RunAsync(["--backend", "redis", "--dir", temp.Path, "--seconds", "1"]);

        Assert.Equal(2, run.ExitCode);
        Assert.StartsWith("error: The redis backend measures a server already running, and needs its address: --endpoint host:port", run.Errors, System.StringComparison.Ordinal);
        Assert.Contains("--backend garnet", run.Errors, System.StringComparison.Ordinal);
        Assert.Contains("Usage:", run.Errors, System.StringComparison.Ordinal);
        Assert.Equal(string.Empty, run.Output);
        Assert.Empty(Directory.GetFileSystemEntries(temp.Path));
    }

    [Fact]
    public async Task AnUnwritableDir_IsBadInput_ReportedBeforeAnythingRuns()
    {
        using var temp = new TempDirectory();
        string file = Path.Combine(temp.Path, "a-file");
        await File.WriteAllTextAsync(file, "not a directory");
        string unusable = Path.Combine(file, "sub");

        CliRun run = await CliRun.RunAsync(["--dir", unusable, "--seconds", "1"]);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"--dir '{unusable}' is not writable", run.Errors, System.StringComparison.Ordinal);
        Assert.Contains("Usage:", run.Errors, System.StringComparison.Ordinal);
        Assert.DoesNotContain("records/s", run.Errors, System.StringComparison.Ordinal); // No progress line: the load never started.
    }

    [Fact]
    public async Task AnUnwritableJsonFile_IsBadInput_ReportedBeforeAnythingRuns()
    {
        using var temp = new TempDirectory();
        string json = Path.Combine(temp.Path, "missing-directory", "report.json");

        CliRun run = await CliRun.RunAsync(["--json", json, "--dir", temp.Path, "--seconds", "1"]);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"--json '{json}' cannot be written", run.Errors, System.StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(temp.Path));
    }
}
