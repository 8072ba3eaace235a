using System;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Conformance;

/// <summary>Bad input gets a typed exception that says what was wrong, and the store keeps what it had.</summary>
public abstract partial class StoreConformanceTests
{
    [Fact]
    public async Task ATypeMessagePackCannotSerialize_IsRefused_WhenTheStoreIsOpened()
    {
        SerializationFailedException refused = await Assert.ThrowsAsync<SerializationFailedException>(OpenAsync<int, NotSerializable>);

        Assert.Equal(typeof(NotSerializable), refused.Type);
        Assert.Contains(nameof(NotSerializable), refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnInstanceMessagePackCannotSerialize_IsRefusedByName_AndNothingStoredIsLost()
    {
        await using IMixedStorageKVStore<int, object> store = await OpenAsync<int, object>();
        await store.UpsertAsync(1, "kept");

        SerializationFailedException refused = await Assert.ThrowsAsync<SerializationFailedException>(async () => await store.UpsertAsync(1, new NotSerializable()));

        Assert.Contains(nameof(NotSerializable), refused.Message, StringComparison.Ordinal);
        Assert.Equal("kept", (await store.ReadAsync(1)).Value);
    }

    [Fact]
    public async Task ANullKey_ThrowsArgumentNull_FromEveryOperation_AndTheStoreStaysUsable()
    {
        await using IMixedStorageKVStore<string, int> store = await OpenAsync<string, int>();
        await store.UpsertAsync("kept", 1);

        await Assert.ThrowsAsync<ArgumentNullException>(async () => await store.UpsertAsync(null!, 2));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await store.ReadAsync(null!));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await store.DeleteAsync(null!));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await store.ReadManyAsync(["kept", null!]));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await store.UpdateManyAsync([null!], (_, _) => { }));
        Assert.Throws<ArgumentNullException>(() => new WriteBatch<string, int>().Upsert(null!, 1));

        Assert.Equal(1, (await store.ReadAsync("kept")).Value);
    }

    [Fact]
    public async Task AValueOverTheStoresLimit_IsRefused_NamingItsSize_AndTheStoreStaysUsable()
    {
        await using IMixedStorageKVStore<int, byte[]> store = await OpenAsync<int, byte[]>();
        await store.UpsertAsync(1, [1, 2, 3]);

        // Zeros compress to almost nothing: the limit is on the serialized size, before compression.
        RecordTooLargeException refused = await Assert.ThrowsAsync<RecordTooLargeException>(async () => await store.UpsertAsync(1, new byte[MaxValueBytes + 1]));

        Assert.True(refused.RecordSizeBytes > MaxValueBytes, refused.Message);
        Assert.Contains(refused.RecordSizeBytes.ToString(System.Globalization.CultureInfo.InvariantCulture), refused.Message, StringComparison.Ordinal);
        Assert.Equal([1, 2, 3], (await store.ReadAsync(1)).Value);
        await store.UpsertAsync(2, new byte[MaxValueBytes / 2]);
        Assert.Equal(MaxValueBytes / 2, (await store.ReadAsync(2)).Value!.Length);
    }

    [Fact]
    public async Task AnAlreadyCancelledToken_StopsAWriteBeforeItIsIssued()
    {
        await using IMixedStorageKVStore<int, int> store = await OpenAsync<int, int>();
        await store.UpsertAsync(1, 1);
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await store.UpsertAsync(1, 2, cancelled.Token));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await store.DeleteAsync(1, cancelled.Token));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await store.ApplyBatchAsync(new WriteBatch<int, int>().Upsert(1, 3), cancelled.Token));

        Assert.Equal(1, (await store.ReadAsync(1)).Value);
    }
}
