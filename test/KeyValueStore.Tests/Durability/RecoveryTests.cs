using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Compaction;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

public class RecoveryTests
{
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task Reopen_AfterDispose_RecoversEveryWrite_AndNoDeletedKey_OverTwoGenerations(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        var expected = new Dictionary<int, byte[]?>();

        await using (var store = StoreFactory.Open(Options(temp.Path, mode)))
        {
            await Task.WhenAll(Enumerable.Range(0, 5_000).Select(async i =>
            {
                await store.UpsertAsync(Key(i), Value(i, 1, 100));
            }));
            for (int i = 0; i < 5_000; i++)
            {
                expected[i] = Value(i, 1, 100);
            }

            for (int i = 0; i < 5_000; i += 7)
            {
                Assert.True(await store.DeleteAsync(Key(i)));
                expected[i] = null;
            }
        }

        await using (var store = StoreFactory.Open(Options(temp.Path, mode)))
        {
            await AssertContentsAsync(store, expected);
            for (int i = 0; i < 5_000; i += 3)
            {
                await store.UpsertAsync(Key(i), Value(i, 2, 60));
                expected[i] = Value(i, 2, 60);
            }
        }

        await using (var store = StoreFactory.Open(Options(temp.Path, mode)))
        {
            await AssertContentsAsync(store, expected);
        }
    }

    [Fact]
    public async Task Reopen_AfterCompaction_LosesNothing_ResurrectsNothing_AndTheFilesStayBounded()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        var expected = new Dictionary<int, byte[]?>();
        const int Keys = 2_000;

        await using (var store = StoreFactory.Open(options))
        {
            for (int round = 0; round < 20; round++)
            {
                for (int i = 0; i < Keys; i++)
                {
                    await store.UpsertAsync(Key(i), Value(i, round, 1_000));
                    expected[i] = Value(i, round, 1_000);
                }
            }

            for (int i = 0; i < Keys; i += 10)
            {
                await store.DeleteAsync(Key(i));
                expected[i] = null;
            }

            CompactionResult result = await store.CompactAsync();
            Assert.True(result.Compacted);
        }

        long liveBytes = expected.Values.Where(v => v is not null).Sum(v => 4L + v!.Length);
        long fileBytes = new System.IO.DirectoryInfo(temp.Path).EnumerateFiles("*", System.IO.SearchOption.AllDirectories).Sum(f => f.Length);
        Assert.True(fileBytes <= 3 * liveBytes, $"{fileBytes} bytes of files for {liveBytes} bytes of live data after compaction and close");

        // A segment compaction dropped takes its sector checksum file with it.
        var layout = new LogFileLayout(temp.Path, "store");
        long firstSegment = layout.Segments().Min(segment => segment.Number);
        Assert.True(firstSegment > 0, "compaction dropped no segment, so the checksum files' cleanup was not exercised");
        Assert.All(layout.SectorChecksumFiles(), file => Assert.True(file.Number >= firstSegment, $"{file.Path} outlived its segment"));

        await using (var store = StoreFactory.Open(options))
        {
            await AssertContentsAsync(store, expected);
        }
    }

    [Fact]
    public async Task CheckpointAsync_OnAScratchStore_ThrowsStoreNotDurable_AndTheStoreStaysUsable()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));

        var error = await Assert.ThrowsAsync<StoreNotDurableException>(() => store.CheckpointAsync());

        Assert.Contains(nameof(DurabilityMode.Checkpoint), error.Message, StringComparison.Ordinal);
        await store.UpsertAsync(Key(1), Value(1, 1));
        Assert.Equal(Value(1, 1), await ReadAsync(store, 1));
    }
}
