using System;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Workloads;
using KeyValueStore.Tests.Support;
using KeyValueStore.LoadTest.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Backends;

/// <summary>
/// The typed backends: the public <see cref="MixedStorageKVStore{TKey, TValue}"/> of record ids and value bytes, on
/// real files, with the engine backends' durable flushes and bytes on disk.
/// </summary>
public class TypedBackendTests
{
    private const int ValueSize = 64;

    [Fact]
    public async Task Typed_WritesThroughThePublicStore_AsRecordIdsAndValueBytes()
    {
        // Written by the backend, read back by a user's store of <long, byte[]> on the same files: the backend stored
        // what the public API stores (the manifest names the types; a different encoding would not read back).
        using var temp = new TempDirectory();
        BackendContext context = Context(temp.Path);
        byte[] value = Records.Value(id: 42, version: 3, ValueSize);
        await using (ILoadTestBackend backend = BackendCatalog.Find("typed-checkpoint")!.Open(context))
        {
            await backend.UpsertAsync(Records.Key(42), value);
        }

        MixedStorageKVStoreOptions options = FasterStoreSizing.Options(context);
        options.Durability = DurabilityMode.Checkpoint;
        options.DeleteLogOnClose = false;
        await using var store = new MixedStorageKVStore<long, byte[]>(options);
        (KeyStatus status, byte[]? read) = await store.ReadAsync(42);

        Assert.Equal(KeyStatus.Found, status);
        Assert.Equal(value, read);
        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(43)).Status);
    }

    [Theory]
    [InlineData("typed")]
    [InlineData("typed-checkpoint")]
    [InlineData("typed-commit")]
    public async Task EveryTypedBackend_ReadsBackTheValue_AndNotFoundForAnAbsentKey(string name)
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        await backend.UpsertAsync(Records.Key(1), Records.Value(1, 1, ValueSize));
        await backend.UpsertAsync(Records.Key(1), Records.Value(1, 2, ValueSize));

        var destination = new byte[ValueSize];
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(1), destination));
        Assert.Equal(new DecodedValue(1, 2, FillerIntact: true), RecordCodec.Decode(destination));
        Assert.Equal(-1, await backend.ReadAsync(Records.Key(2), destination));

        // A destination shorter than the value gets its start; the full length is still reported.
        var shorter = new byte[RecordCodec.HeaderSize];
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(1), shorter));
        Assert.Equal(Records.Value(1, 2, ValueSize).AsSpan(0, RecordCodec.HeaderSize).ToArray(), shorter);
    }

    [Fact]
    public async Task Typed_CopiesAValueThatIsASliceOfALargerArray()
    {
        // Only a whole array goes in uncopied; a slice must be stored as exactly its own bytes.
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find("typed")!.Open(Context(temp.Path));
        var buffer = new byte[ValueSize + 10];
        RecordCodec.WriteValue(buffer.AsSpan(5, ValueSize), 7, 1);

        await backend.UpsertAsync(Records.Key(7), buffer.AsMemory(5, ValueSize));

        var destination = new byte[ValueSize + 10];
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(7), destination));
        Assert.Equal(new DecodedValue(7, 1, FillerIntact: true), RecordCodec.Decode(destination.AsSpan(0, ValueSize)));
    }

    [Fact]
    public async Task Typed_RefusesAKeyThatIsNotARecordId()
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find("typed")!.Open(Context(temp.Path));

        ArgumentException error = await Assert.ThrowsAsync<ArgumentException>(async () => await backend.UpsertAsync(new byte[] { 1 }, Records.Value(1, 1, ValueSize)));

        Assert.Contains("got a key of 1 bytes", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TypedCommit_CountsTheGroupCommitsItsWritesWaitFor_AndHasBytesOnDisk()
    {
        using var temp = new TempDirectory();
        await using var backend = (TypedBackend)BackendCatalog.Find("typed-commit")!.Open(Context(temp.Path));
        long before = backend.DurableFlushes!.Value;

        // In Commit mode an upsert completes only after a group commit of the write-ahead log that holds it.
        for (long id = 0; id < 10; id++)
        {
            await backend.UpsertAsync(Records.Key(id), Records.Value(id, 1, ValueSize));
        }

        long after = backend.DurableFlushes!.Value;
        Assert.True(after > before, $"flushes before {before}, after {after}");
        Assert.True(backend.BytesOnDisk() > 0, "the write-ahead log is on disk");
        Assert.StartsWith("a write-ahead log group commit", backend.FlushNote, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Typed_WithDurabilityNone_CountsNoFlushes()
    {
        using var temp = new TempDirectory();
        await using var backend = (TypedBackend)BackendCatalog.Find("typed")!.Open(Context(temp.Path));

        await backend.UpsertAsync(Records.Key(1), Records.Value(1, 1, ValueSize));

        Assert.Null(backend.DurableFlushes);
    }

    [Fact]
    public void TheDefaultBackend_IsTyped()
    {
        Assert.Equal("typed", BackendCatalog.Default.Name);
        Assert.Same(BackendCatalog.Default, new LoadTestOptions().Backend);
    }

    private static BackendContext Context(string directory) => new(directory, Records: 100, ValueSize, LoadTestOptions.DefaultMemorySize);
}
