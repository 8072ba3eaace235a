using System;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Compaction;
using KeyValueStore.Engine;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using Xunit;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// Compaction copies records while writers run, but never while a checkpoint does: a record written during a fold-over
/// checkpoint can land below its tail in the next version, and recovery then rewrites that page in place, under sector
/// checksums already recorded (a power cut during recovery made the store unopenable).
/// </summary>
public class CompactionBesideCheckpointsTests
{
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task ACompactionWithCheckpointsTakenThroughout_WritesNoRecordInACheckpointsNextVersion_AndLosesNothing(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        const int Keys = 20_000;
        await using (FasterRecordStore store = StoreFactory.Open(DurableStores.Options(temp.Path, mode)))
        {
            for (int round = 0; round < 3; round++)
            {
                for (int key = 0; key < Keys; key++)
                {
                    await store.UpsertAsync(DurableStores.Key(key), DurableStores.Value(key, round, size: 200));
                }
            }

            Assert.True(store.FasterKV.Log.SafeReadOnlyAddress - store.FasterKV.Log.BeginAddress > 3 * CompactionPass.MinSliceBytes, "the compaction must span several slices");
            long tailBefore = store.FasterKV.Log.TailAddress;

            // Checkpoints back to back for as long as the compaction runs.
            using var compactionDone = new CancellationTokenSource();
            Task<int> checkpoints = Task.Run(async () =>
            {
                int taken = 0;
                while (!compactionDone.IsCancellationRequested)
                {
                    await store.CheckpointAsync();
                    taken++;
                }

                return taken;
            });
            CompactionResult result = await store.CompactAsync();
            await compactionDone.CancelAsync();
            int checkpointsTaken = await checkpoints;

            Assert.True(result.CopiedBytes > 0, "the compaction copied nothing");
            Assert.True(checkpointsTaken >= 3, $"only {checkpointsTaken} checkpoints ran beside the compaction");
            AssertNoRecordIsInANewVersion(store.FasterKV, tailBefore);
        }

        await using (FasterRecordStore reopened = StoreFactory.Open(DurableStores.Options(temp.Path, mode)))
        {
            for (int key = 0; key < Keys; key++)
            {
                Assert.Equal(DurableStores.Value(key, 2, size: 200), await DurableStores.ReadAsync(reopened, key));
            }
        }
    }

    /// <summary>FASTER marks a record written while a checkpoint runs as in the new version; none may be found from <paramref name="fromAddress"/> on (the copies).</summary>
    private static void AssertNoRecordIsInANewVersion(FasterKV<SpanByte, SpanByte> store, long fromAddress)
    {
        using IFasterScanIterator<SpanByte, SpanByte> scan = store.Log.Scan(fromAddress, store.Log.TailAddress);
        int records = 0;
        while (scan.GetNext(out RecordInfo info))
        {
            records++;
            Assert.False(info.IsInNewVersion, $"the record at {scan.CurrentAddress} was written while a checkpoint ran");
        }

        Assert.True(records > 0, "no copies were found to check");
    }
}
