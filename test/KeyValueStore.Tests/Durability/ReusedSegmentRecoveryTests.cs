using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// A durable store whose log runs on in segment files reused from emptied ones (SegmentRecyclingDevice): past the log's
/// tail such a file holds its old segment's bytes, which recovery must never take for records or damage.
/// </summary>
public class ReusedSegmentRecoveryTests
{
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AStoreCrashedWithItsTailInAReusedFile_RecoversEveryWriteItPromised(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = SmallSegments(temp.Path, mode);
        string crash = temp.Path + "-crash";
        var expected = new Dictionary<int, byte[]?>();
        try
        {
            await using (var store = StoreFactory.Open(options))
            {
                // Rounds of overwrites, each compacted and checkpointed, until a checkpoint's tail lies in a reused file
                // with its old segment's bytes past that tail.
                const int keys = 200;
                long segmentSize = 1L << options.SegmentSizeBits;
                bool tailInReusedFile = false;
                for (int round = 0; round < 40 && !tailInReusedFile; round++)
                {
                    for (int key = 0; key < keys; key++)
                    {
                        expected[key] = Value(key, round, 200);
                        await store.UpsertAsync(Key(key), expected[key]!);
                    }

                    await store.CompactAsync();
                    await store.CheckpointAsync();
                    long checkpointTail = store.FasterKV.Log.TailAddress;
                    byte[] tailSegment = File.ReadAllBytes(store.Layout!.SegmentPath(checkpointTail / segmentSize));
                    int pastTail = (int)((((checkpointTail % segmentSize) + 4095) / 4096) * 4096);
                    tailInReusedFile = tailSegment.AsSpan(pastTail).ContainsAnyExcept((byte)0);
                }

                Assert.True(tailInReusedFile, "a checkpoint's tail lay in a reused file, its old segment's bytes past the tail");
                Assert.True(store.Spares!.SegmentsReused > 0);

                // Checkpoint mode promises what the last checkpoint holds; Commit mode every acknowledged write.
                for (int key = 0; key < keys; key += 3)
                {
                    byte[] newer = Value(key, 100, 200);
                    await store.UpsertAsync(Key(key), newer);
                    if (mode == DurabilityMode.Commit)
                    {
                        expected[key] = newer;
                    }
                }

                CrashImage.Copy(temp.Path, crash);
            }

            await using var reopened = StoreFactory.Open(SmallSegments(crash, mode));
            await AssertContentsAsync(reopened, expected);

            // And it goes on: new writes past the recovered tail, over the old bytes, read back.
            await reopened.UpsertAsync(Key(5_000), Value(5_000, 1, 200));
            Assert.Equal(Value(5_000, 1, 200), await ReadAsync(reopened, 5_000));
        }
        finally
        {
            if (Directory.Exists(crash))
            {
                Directory.Delete(crash, recursive: true);
            }
        }
    }

    private static MixedStorageKVStoreOptions SmallSegments(string directory, DurabilityMode mode)
    {
        MixedStorageKVStoreOptions options = Options(directory, mode);
        options.SegmentSizeBits = 16;
        return options;
    }
}
