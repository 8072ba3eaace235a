using System;
using System.IO;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Running;

[Collection(RunsCollection.Name)]
public class FailureTests
{
    [Fact]
    public async Task ABackendThatFails_EndsTheRun_WithItsErrorAndExitCode3_AndCleansUp()
    {
        using var temp = new TempDirectory();

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--seconds", "30"], context => new FailingBackend(BackendCatalog.Default.Open(context), context.Records));

        Assert.Equal(3, run.ExitCode);
        Assert.Contains("error: the typed backend failed: System.IO.IOException: simulated: no space left on device", run.Errors, StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(temp.Path));
    }

    [Theory]
    [InlineData("typed", "free on the disk of")]
    [InlineData("faster", "free on the disk of")]
    [InlineData("memory", "of memory this process can use")]
    public async Task ALoadLargerThanTheMachine_IsBadInput(string backend, string limit)
    {
        using var temp = new TempDirectory();

        // 100 million records of 1 MiB: 95 TiB.
        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", backend, "--records", "100000000", "--value-size", "1m"]);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains("--records 100000000 of --value-size 1048576 is 95.4 TiB of data", run.Errors, StringComparison.Ordinal);
        Assert.Contains(limit, run.Errors, StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(temp.Path));
    }
}
