using System;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Running;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Running;

/// <summary>--cold: the page cache dropped between load and run where this process may drop it, and a clear refusal where it may not.</summary>
[Collection(RunsCollection.Name)]
public class ColdRunTests
{
    [Fact]
    public void Cold_IsTaken_WhereThePageCacheCanBeDropped_AndRefusedSayingWhyElsewhere()
    {
        if (PageCache.WhyCannotDrop() is string why)
        {
            var refused = Assert.Throws<InvalidOptionException>(() => OptionParser.Parse(["--cold"]));
            Assert.Equal(why, refused.Message);
            Assert.Contains("--cold", refused.Message, StringComparison.Ordinal);
        }
        else
        {
            Assert.True(OptionParser.Parse(["--cold"]).Cold);
        }

        Assert.False(OptionParser.Parse([]).Cold);
    }

    [Fact]
    public async Task AColdRun_OfAStoreMostlyOnDisk_ReadsEveryRecordRight_AndSaysTheCacheWasDropped()
    {
        using var temp = new TempDirectory();

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", "typed", "--memory-size", "64k", "--value-size", "1k", "--cold", "--verify"]);

        if (PageCache.WhyCannotDrop() is string why)
        {
            Assert.Equal(ExitCodes.BadInput, run.ExitCode);
            Assert.Contains(why, run.Errors, StringComparison.Ordinal);
            return;
        }

        Assert.True(run.ExitCode == 0, run.Output + run.Errors);
        Assert.Contains(" 0 mismatches", run.Output, StringComparison.Ordinal);
        Assert.Contains("dropped between load and run (--cold)", run.Output, StringComparison.Ordinal);
    }
}
