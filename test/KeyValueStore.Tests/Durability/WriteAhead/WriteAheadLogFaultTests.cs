using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>A Commit-mode store whose write-ahead log disk fails: typed errors, a fence, no hang, nothing acknowledged lost.</summary>
public class WriteAheadLogFaultTests
{
    private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(30);

    [Theory]
    [InlineData(FaultInjectingDevice.InputOutputError, false)]
    [InlineData(FaultInjectingDevice.NoSpaceLeft, false)]
    [InlineData(FaultInjectingDevice.InputOutputError, true)]
    public async Task AfterTheLogFails_EveryWriteThrowsStoreFaulted_NothingHangs_AndAReopenHasEveryAcknowledgedWrite(uint error, bool reportedElsewhere)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = Options(temp.Path, DurabilityMode.Commit);
        FaultInjectingDevice? device = null;
        StoreSettings settings = StoreSettingsValidator.Validate(options) with { WrapDevice = (inner, role) => role == DeviceRole.WriteAheadLog ? device = new FaultInjectingDevice(inner) : inner };
        var acknowledged = new List<int>();
        var store = StoreOpener.Open(settings, NullLogger.Instance);
        for (int i = 0; i < 100; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, 1));
            acknowledged.Add(i);
        }

        device!.ReportsFailuresElsewhere = reportedElsewhere;
        device.FailWrites(error);
        var failed = await Assert.ThrowsAsync<StoreFaultedException>(() => store.UpsertAsync(Key(100), Value(100, 1)).AsTask().WaitAsync(HangLimit));
        Assert.Contains("write-ahead log", failed.Message, StringComparison.Ordinal);

        // The store holds the write the log failed to commit (it is applied before it is logged): no reader may see it.
        await Assert.ThrowsAsync<StoreFaultedException>(() => ReadAsync(store, 100));

        // The fence: once the log has failed no later write is acknowledged, even with the disk back.
        device.FailWrites(0);
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.UpsertAsync(Key(101), Value(101, 1)).AsTask().WaitAsync(HangLimit));
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.DeleteAsync(Key(1)).AsTask().WaitAsync(HangLimit));
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.ApplyBatchAsync([BatchWrite.Upsert(Key(102), Value(102, 1))]).AsTask().WaitAsync(HangLimit));
        await Assert.ThrowsAsync<StoreFaultedException>(() => ReadAsync(store, 5));
        await Assert.ThrowsAsync<StoreFaultedException>(() => store.ReadManyAsync([Key(5)]).AsTask());

        await store.DisposeAsync().AsTask().WaitAsync(HangLimit);

        await using var reopened = StoreFactory.Open(options);
        foreach (int i in acknowledged)
        {
            Assert.Equal(Value(i, 1), await ReadAsync(reopened, i));
        }

        Assert.Null(await ReadAsync(reopened, 100));
        Assert.Null(await ReadAsync(reopened, 101));
        Assert.Null(await ReadAsync(reopened, 102));
        await reopened.UpsertAsync(Key(200), Value(200, 1));
        Assert.Equal(Value(200, 1), await ReadAsync(reopened, 200));
    }
}
