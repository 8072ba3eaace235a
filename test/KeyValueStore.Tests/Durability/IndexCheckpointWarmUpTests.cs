using System.IO;
using System.Threading.Tasks;
using KeyValueStore.Durability;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using static KeyValueStore.Tests.Durability.DurableStores;

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
    public void AWarmUpThatCannotWrite_IsIgnored()
    {
        using var temp = new TempDirectory();
        string notADirectory = Path.Combine(temp.Path, "file");
        File.WriteAllBytes(notADirectory, [1]);

        Assert.False(IndexCheckpointWarmUp.Run(notADirectory));
    }

    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task ADurableStoreOpened_LeavesNoWarmUpFolderInItsDirectory(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        await using (var store = StoreFactory.Open(Options(temp.Path, mode)))
        {
            await store.UpsertAsync(Key(1), Value(1, 1));
            Assert.Empty(Directory.EnumerateDirectories(temp.Path, ".index-checkpoint-warm-up.*"));
        }
    }
}
