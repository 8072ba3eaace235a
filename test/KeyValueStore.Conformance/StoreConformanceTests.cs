using System;
using System.Threading.Tasks;

namespace KeyValueStore.Conformance;

/// <summary>
/// What every <see cref="IMixedStorageKVStore{TKey, TValue}"/> does, whatever it runs on: a test project derives a
/// class that opens its store, and xUnit runs every test here against it. What only one implementation does (spilling
/// to disk, compaction, durability modes, a server going away) is tested beside that implementation.
/// </summary>
/// <remarks>Each test opens its own empty stores; xUnit creates an instance per test and disposes it after.</remarks>
public abstract partial class StoreConformanceTests
{
    /// <summary>Opens an empty store of these types.</summary>
    /// <exception cref="SerializationFailedException">MessagePack cannot serialize one of the types.</exception>
    protected abstract Task<IMixedStorageKVStore<TKey, TValue>> OpenAsync<TKey, TValue>();

    /// <summary>Gets the largest serialized value the stores this class opens take; a larger one must be refused.</summary>
    protected abstract int MaxValueBytes { get; }

    [Fact]
    public async Task Upsert_ThenRead_ReturnsTheValue_AndAnAbsentKeyReadsAsNotFound()
    {
        await using IMixedStorageKVStore<string, string> store = await OpenAsync<string, string>();

        await store.UpsertAsync("present", "value");

        Assert.Equal(new ReadResult<string>(KeyStatus.Found, "value"), await store.ReadAsync("present"));
        Assert.Equal(new ReadResult<string>(KeyStatus.NotFound, null), await store.ReadAsync("absent"));
    }

    [Fact]
    public async Task Upsert_ReplacesTheValue()
    {
        await using IMixedStorageKVStore<int, string> store = await OpenAsync<int, string>();

        await store.UpsertAsync(1, "first");
        await store.UpsertAsync(1, "second");

        Assert.Equal("second", (await store.ReadAsync(1)).Value);
    }

    [Fact]
    public async Task Delete_ReportsFound_OnlyForALiveKey_AndTheKeyThenReadsAsNotFound()
    {
        await using IMixedStorageKVStore<int, string> store = await OpenAsync<int, string>();
        await store.UpsertAsync(1, "one");

        Assert.Equal(KeyStatus.Found, await store.DeleteAsync(1));
        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(1)).Status);
        Assert.Equal(KeyStatus.NotFound, await store.DeleteAsync(1));
        Assert.Equal(KeyStatus.NotFound, await store.DeleteAsync(2));

        await store.UpsertAsync(1, "again");
        Assert.Equal("again", (await store.ReadAsync(1)).Value);
    }

    [Fact]
    public async Task ANullValue_IsStored_AndReadsBackAsFoundNull()
    {
        await using IMixedStorageKVStore<int, string?> store = await OpenAsync<int, string?>();

        await store.UpsertAsync(1, null);

        Assert.Equal(new ReadResult<string?>(KeyStatus.Found, null), await store.ReadAsync(1));
        Assert.Equal(new ReadResult<string?>(KeyStatus.NotFound, null), await store.ReadAsync(2));
    }

    [Fact]
    public async Task EveryMember_AfterDispose_ThrowsObjectDisposed()
    {
        IMixedStorageKVStore<int, int> store = await OpenAsync<int, int>();
        await store.UpsertAsync(1, 1);
        await store.DisposeAsync();
        await store.DisposeAsync();
        store.Dispose();

        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.UpsertAsync(1, 2));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.ReadAsync(1));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.DeleteAsync(1));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.ReadManyAsync([1]));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.ApplyBatchAsync(new WriteBatch<int, int>().Upsert(1, 3)));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.UpdateManyAsync([1], (_, _) => { }));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.CompactAsync());
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.CheckpointAsync());
    }
}
