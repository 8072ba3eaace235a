using System;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>In Commit mode a reader never sees a write before the write-ahead log holds it durably.</summary>
public class CommitVisibilityTests
{
    private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(30);

    [Theory]
    [InlineData("upsert")]
    [InlineData("delete")]
    [InlineData("batch")]
    public async Task AWrite_IsInvisibleToReaders_UntilItsLogEntryIsDurable(string kind)
    {
        using var temp = new TempDirectory();
        FaultInjectingDevice? log = null;
        StoreSettings settings = StoreSettingsValidator.Validate(Options(temp.Path, DurabilityMode.Commit)) with
        {
            WrapDevice = (inner, role) => role == DeviceRole.WriteAheadLog ? log = new FaultInjectingDevice(inner) : inner,
        };
        await using var store = StoreOpener.Open(settings, NullLogger.Instance);
        await store.UpsertAsync(Key(1), Value(1, 1));
        await store.UpsertAsync(Key(2), Value(2, 1));

        // The disk takes its time: the group commit's write reaches it but does not complete.
        log!.HoldWrites();
        Task write = kind switch
        {
            "upsert" => store.UpsertAsync(Key(1), Value(1, 2)).AsTask(),
            "delete" => store.DeleteAsync(Key(1)).AsTask(),
            _ => store.ApplyBatchAsync([BatchWrite.Upsert(Key(1), Value(1, 2)), BatchWrite.Upsert(Key(2), Value(2, 2))]).AsTask(),
        };
        try
        {
            await Eventually.TrueAsync(() => log.HeldWrites > 0, () => "the write-ahead log never wrote the entry");

            Assert.False(write.IsCompleted);
            Assert.Equal(Value(1, 1), await ReadAsync(store, 1).WaitAsync(HangLimit));
            Assert.Equal(Value(2, 1), await ReadAsync(store, 2).WaitAsync(HangLimit));
        }
        finally
        {
            // Also when an assertion failed: the store's close commits the log, which would wait for the held writes.
            log.ReleaseWrites();
        }

        await write.WaitAsync(HangLimit);
        byte[]? expected = kind == "delete" ? null : Value(1, 2);
        Assert.Equal(expected, await ReadAsync(store, 1));
    }

    /// <summary>
    /// Writes of one key wait for their commits together and are applied after, in the log's order: what the store
    /// shows once they finish must be what recovery replays from the log.
    /// </summary>
    [Fact]
    public async Task ConcurrentWritesOfTheSameKeys_AreAppliedInTheLogsOrder_SoRecoveryReplaysWhatTheStoreShowed()
    {
        using var temp = new TempDirectory();
        string live = System.IO.Path.Combine(temp.Path, "live");
        string image = System.IO.Path.Combine(temp.Path, "image");
        MixedStorageKVStoreOptions options = Options(live, DurabilityMode.Commit);
        await using var store = StoreFactory.Open(options);
        for (int round = 0; round < 20; round++)
        {
            var writers = new Task[32];
            for (int w = 0; w < writers.Length; w++)
            {
                int writer = w;
                writers[w] = writer % 4 == 0
                    ? store.ApplyBatchAsync([BatchWrite.Upsert(Key(1), Value(1, (round * 100) + writer)), BatchWrite.Upsert(Key(2), Value(2, (round * 100) + writer))]).AsTask()
                    : store.UpsertAsync(Key(1 + (writer % 2)), Value(1 + (writer % 2), (round * 100) + writer)).AsTask();
            }

            await Task.WhenAll(writers);
        }

        byte[]? one = await ReadAsync(store, 1);
        byte[]? two = await ReadAsync(store, 2);

        // Every write was acknowledged, so the log holds them all; no checkpoint was asked for, so recovery replays them.
        CopyAsCrashImage(live, image);
        await using var recovered = StoreFactory.Open(Options(image, DurabilityMode.Commit));
        Assert.Equal(one, await ReadAsync(recovered, 1));
        Assert.Equal(two, await ReadAsync(recovered, 2));
    }
}
