using System.IO;
using KeyValueStore.Durability;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Durability;

public class IndexCheckpointWarmUpTests
{
    [Fact]
    public void AWarmUp_TakesAnIndexCheckpointOfAThrowawayStore_AndLeavesNothingBehind()
    {
        using var temp = new TempDirectory();

        Assert.True(IndexCheckpointWarmUp.Run(temp.Path), "the throwaway store's index checkpoint completed");

        Assert.Empty(Directory.EnumerateFileSystemEntries(temp.Path));
    }

    [Fact]
    public void AWarmUp_DeletesTheFolderOfOneAProcessDiedIn()
    {
        using var temp = new TempDirectory();
        string leftOver = Path.Combine(temp.Path, ".index-checkpoint-warm-up.0123456789abcdef0123456789abcdef");
        Directory.CreateDirectory(Path.Combine(leftOver, "checkpoints"));
        File.WriteAllBytes(Path.Combine(leftOver, "log.0"), new byte[4096]);

        Assert.True(IndexCheckpointWarmUp.Run(temp.Path));

        Assert.Empty(Directory.EnumerateFileSystemEntries(temp.Path));
    }

    [Fact]
    public void AWarmUpThatCannotWrite_IsIgnored()
    {
        using var temp = new TempDirectory();
        string notADirectory = Path.Combine(temp.Path, "file");
        File.WriteAllBytes(notADirectory, [1]);

        Assert.False(IndexCheckpointWarmUp.Run(notADirectory));
    }
}
