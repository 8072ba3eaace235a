using System.IO;
using System.Threading.Tasks;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>Switching a durable store between Commit and Checkpoint mode, with a crash right after the switch.</summary>
public class ModeSwitchTests
{
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task ACommitStoreReopenedInCheckpointMode_AndCrashedBeforeItsNextCheckpoint_StillOpens_WithEveryWrite(DurabilityMode reopenedIn)
    {
        using var temp = new TempDirectory();
        await DamagedFilesTests.WriteAndCloseAsync(Options(temp.Path, DurabilityMode.Commit), 300);
        string crash = temp.Path + "-crash";
        try
        {
            // Opening in Checkpoint mode replays the write-ahead log, checkpoints and deletes the log; then the process dies.
            await using (var switched = StoreFactory.Open(Options(temp.Path, DurabilityMode.Checkpoint)))
            {
                Assert.False(Directory.Exists(Path.Combine(temp.Path, "store.wal")), "the switch retired the write-ahead log");
                CrashImage.Copy(temp.Path, crash);
            }

            await using var reopened = StoreFactory.Open(Options(crash, reopenedIn));
            for (int i = 0; i < 300; i++)
            {
                Assert.Equal(Value(i, 1, 200), await ReadAsync(reopened, i));
            }
        }
        finally
        {
            if (Directory.Exists(crash))
            {
                Directory.Delete(crash, recursive: true);
            }
        }
    }

    [Fact]
    public async Task ACheckpointStoreReopenedInCommitMode_AndCrashedBeforeItsNextCheckpoint_KeepsEveryAcknowledgedWrite()
    {
        using var temp = new TempDirectory();
        await DamagedFilesTests.WriteAndCloseAsync(Options(temp.Path, DurabilityMode.Checkpoint), 300);
        string crash = temp.Path + "-crash";
        try
        {
            await using (var switched = StoreFactory.Open(Options(temp.Path, DurabilityMode.Commit)))
            {
                await switched.UpsertAsync(Key(1_000), Value(1_000, 2, 200));
                CrashImage.Copy(temp.Path, crash);
            }

            await using var reopened = StoreFactory.Open(Options(crash, DurabilityMode.Checkpoint));
            Assert.Equal(Value(1_000, 2, 200), await ReadAsync(reopened, 1_000));
            for (int i = 0; i < 300; i++)
            {
                Assert.Equal(Value(i, 1, 200), await ReadAsync(reopened, i));
            }
        }
        finally
        {
            if (Directory.Exists(crash))
            {
                Directory.Delete(crash, recursive: true);
            }
        }
    }
}
