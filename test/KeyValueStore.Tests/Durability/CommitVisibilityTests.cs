using System;
using System.Threading.Tasks;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// The documented behaviour of Commit mode: a write is applied, then logged, then waited for, so readers can see it
/// before the write-ahead log holds it durably (docs/durability.md says why, with the cost of the other order).
/// </summary>
public class CommitVisibilityTests
{
    private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(30);

    [Theory]
    [InlineData("upsert")]
    [InlineData("delete")]
    [InlineData("batch")]
    public async Task AWrite_IsVisibleToReaders_BeforeItsLogEntryIsDurable(string kind)
    {
        using var temp = new TempDirectory();
        FaultInjectingDevice? log = null;
        StoreSettings settings = StoreSettingsValidator.Validate(Options(temp.Path, DurabilityMode.Commit)) with
        {
            WrapDevice = (inner, role) => role == DeviceRole.WriteAheadLog ? log = new FaultInjectingDevice(inner) : inner,
        };
        await using var store = new FasterRecordStore(settings, NullLogger.Instance);
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
            Assert.Equal(kind == "delete" ? null : Value(1, 2), await ReadAsync(store, 1).WaitAsync(HangLimit));
            Assert.Equal(kind == "batch" ? Value(2, 2) : Value(2, 1), await ReadAsync(store, 2).WaitAsync(HangLimit));
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
}
