using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>An operation cancelled while it waits to start has done nothing, and the store stays usable.</summary>
public class CancellationTests
{
    [Fact]
    public async Task OperationsWaitingForASession_AreCancelled_AndWriteNothing()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = TypedStores.InMemory(temp.Path);
        options.SessionPoolSize = 1;
        await using var store = TypedStores.Open<int, string>(options);
        await store.UpsertAsync(1, "before");
        var held = await store.Engine.Sessions.RentAsync();
        using var cancellation = new CancellationTokenSource();

        ValueTask upsert = store.UpsertAsync(1, "cancelled", cancellation.Token);
        ValueTask<ReadResult<string>> read = store.ReadAsync(1, cancellation.Token);
        ValueTask<KeyStatus> delete = store.DeleteAsync(1, cancellation.Token);
        ValueTask batch = store.ApplyBatchAsync(new WriteBatch<int, string>().Upsert(1, "cancelled"), cancellation.Token);
        Assert.False(upsert.IsCompleted || read.IsCompleted || delete.IsCompleted || batch.IsCompleted, "every operation waits for the one session");
        cancellation.Cancel();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await upsert);
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await read);
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await delete);
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await batch);
        held.Dispose();

        Assert.Equal("before", (await store.ReadAsync(1)).Value);
        await store.UpsertAsync(1, "after");
        Assert.Equal("after", (await store.ReadAsync(1)).Value);
    }

    [Fact]
    public async Task AnAlreadyCancelledToken_StopsAWriteBeforeItIsIssued_EvenWithASessionFree()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, string>(TypedStores.InMemory(temp.Path));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await store.UpsertAsync(1, "never", new CancellationToken(canceled: true)));

        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(1)).Status);
    }
}
