using System;
using System.Collections.Concurrent;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Serialization;
using KeyValueStore.Tests.Support;
using MessagePack;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>Bad input gets a clear typed exception; the store stays usable and keeps what it held.</summary>
public class BadInputTests
{
    [Fact]
    public void InvalidOptions_ReportEveryProblemInOneException_BeforeTheDirectoryIsCreated()
    {
        using var temp = new TempDirectory();
        string directory = Path.Combine(temp.Path, "never-created");
        var options = new MixedStorageKVStoreOptions { LogDirectory = directory, PageSizeBits = 3, MemorySizeBits = 2, SegmentSizeBits = 1, SessionPoolSize = 0 };

        var error = Assert.Throws<InvalidStoreOptionsException>(() => new MixedStorageKVStore<int, int>(options));

        Assert.Equal(4, error.Problems.Count);
        Assert.Contains(error.Problems, problem => problem.Contains("PageSizeBits is 3", StringComparison.Ordinal));
        Assert.Contains(error.Problems, problem => problem.Contains("MemorySizeBits is 2", StringComparison.Ordinal));
        Assert.Contains(error.Problems, problem => problem.Contains("SegmentSizeBits is 1", StringComparison.Ordinal));
        Assert.Contains(error.Problems, problem => problem.Contains("SessionPoolSize is 0", StringComparison.Ordinal));
        Assert.False(Directory.Exists(directory));
    }

    [Fact]
    public void ATypeMessagePackCannotSerialize_IsNamed_WhenTheStoreIsCreated_BeforeTheDirectoryIsCreated()
    {
        using var temp = new TempDirectory();
        string directory = Path.Combine(temp.Path, "never-created");

        var valueError = Assert.Throws<SerializationFailedException>(() => new MixedStorageKVStore<int, NotSerializable>(new MixedStorageKVStoreOptions { LogDirectory = directory }));
        var keyError = Assert.Throws<SerializationFailedException>(() => new MixedStorageKVStore<NotSerializable, int>(new MixedStorageKVStoreOptions { LogDirectory = directory }));

        Assert.Equal(typeof(NotSerializable), valueError.Type);
        Assert.Equal("value", valueError.Role);
        Assert.Contains(typeof(NotSerializable).FullName!, valueError.Message, StringComparison.Ordinal);
        Assert.Contains("MessagePackObject", valueError.Message, StringComparison.Ordinal);
        Assert.Equal("key", keyError.Role);
        Assert.False(Directory.Exists(directory));
    }

    [Fact]
    public async Task AnOperationsError_ComesBackInItsTask_NotThrownByTheCall()
    {
        // The typed operations are not async methods (their synchronous path has no state machine); callers that start
        // several before awaiting any must still get every error from the task, as from an async method.
        using var temp = new TempDirectory();
        var store = TypedStores.Open<string, byte[]>(TypedStores.InMemory(temp.Path));
        await store.UpsertAsync("kept", [1]);

        ValueTask upsert = store.UpsertAsync(null!, [1]);
        ValueTask<ReadResult<byte[]>> read = store.ReadAsync(null!);
        ValueTask<KeyStatus> delete = store.DeleteAsync(null!);
        await Assert.ThrowsAsync<ArgumentNullException>(() => upsert.AsTask());
        await Assert.ThrowsAsync<ArgumentNullException>(() => read.AsTask());
        await Assert.ThrowsAsync<ArgumentNullException>(() => delete.AsTask());
        Assert.Equal([1], (await store.ReadAsync("kept")).Value);

        await store.DisposeAsync();
        ValueTask upsertAfterDispose = store.UpsertAsync("kept", [2]);
        ValueTask<ReadResult<byte[]>> readAfterDispose = store.ReadAsync("kept");
        ValueTask<KeyStatus> deleteAfterDispose = store.DeleteAsync("kept");
        await Assert.ThrowsAsync<ObjectDisposedException>(() => upsertAfterDispose.AsTask());
        await Assert.ThrowsAsync<ObjectDisposedException>(() => readAfterDispose.AsTask());
        await Assert.ThrowsAsync<ObjectDisposedException>(() => deleteAfterDispose.AsTask());
    }

    [Fact]
    public async Task ARecordLargerThanAPage_IsRefused_NamingBothSizesAndTheOptionToRaise_AndTheStoreStaysUsable()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, byte[]>(TypedStores.LowMemory(temp.Path));
        await store.UpsertAsync(1, [1, 2, 3]);

        // Compressible, but a record must fit in a page uncompressed: that is what lets a reader cap what it decompresses.
        var error = await Assert.ThrowsAsync<RecordTooLargeException>(async () => await store.UpsertAsync(1, new byte[5_000]));

        Assert.Equal(4096, error.PageSizeBytes);
        Assert.True(error.RecordSizeBytes > 5_000);
        Assert.Contains(error.RecordSizeBytes.ToString(System.Globalization.CultureInfo.InvariantCulture), error.Message, StringComparison.Ordinal);
        Assert.Contains("4096", error.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(MixedStorageKVStoreOptions.PageSizeBits), error.Message, StringComparison.Ordinal);
        Assert.Equal(new byte[] { 1, 2, 3 }, (await store.ReadAsync(1)).Value);
    }

    [Theory]
    [InlineData(new byte[] { }, "empty")]
    [InlineData(new byte[] { 0x07, 0x01 }, "codec byte is 0x07")]
    [InlineData(new byte[] { 0x01, 0x10 }, "too short")]
    [InlineData(new byte[] { 0x01, 0xff, 0xff, 0xff, 0x7f, 0x00 }, "decompressed length of 2147483647")]
    [InlineData(new byte[] { 0x01, 0x00, 0x00, 0x00, 0x00, 0x00 }, "decompressed length of 0")]
    [InlineData(new byte[] { 0x01, 0x10, 0x00, 0x00, 0x00, 0xff, 0xff }, "LZ4 block decompresses")]
    [InlineData(new byte[] { 0x00, 0xc1 }, "MessagePack cannot read")]
    [InlineData(new byte[] { 0x00, 0xa1, 0x41, 0x00 }, "left over")]
    public async Task ADamagedValueEnvelope_ThrowsValueCorrupted_SayingWhatIsWrong_AndTheStoreStaysUsable(byte[] stored, string problem)
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, string>(TypedStores.InMemory(temp.Path));
        await store.UpsertAsync(2, "intact");
        RentedBytes key = new KeyEncoder<int>(MessagePackSerializerOptions.Standard).Encode(1);
        await store.Engine.UpsertAsync(key.Memory, stored);
        key.Return();

        var error = await Assert.ThrowsAsync<ValueCorruptedException>(async () => await store.ReadAsync(1));
        var many = await Assert.ThrowsAsync<ValueCorruptedException>(async () => await store.ReadManyAsync([2, 1]));

        Assert.Contains(problem, error.Problem, StringComparison.Ordinal);
        Assert.Equal(error.Problem, many.Problem);
        Assert.Equal("intact", (await store.ReadAsync(2)).Value);
        await store.UpsertAsync(1, "replaced");
        Assert.Equal("replaced", (await store.ReadAsync(1)).Value);
    }

    [Fact]
    public void AnAbsurdDecompressedLength_IsRefusedBeforeAnythingIsAllocatedForIt()
    {
        var codec = new ValueCodec<string>(MessagePackSerializerOptions.Standard, compressionThreshold: 0, maxPayloadLength: 1 << 25);
        byte[] stored = [0x01, 0x00, 0x00, 0x00, 0x7f, 0x00, 0x00];
        codec.Decode(codec.CompressIfWorthwhile(codec.EncodePlain(new string('a', 100))).Memory); // warm up the code paths

        long before = GC.GetAllocatedBytesForCurrentThread();
        var error = Assert.Throws<ValueCorruptedException>(() => codec.Decode(stored));
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Contains("2130706432", error.Problem, StringComparison.Ordinal);
        Assert.True(allocated < 64 * 1024, $"{allocated} bytes were allocated to refuse a value claiming 2 GB");
    }

    [Fact]
    public async Task EveryMember_AfterDispose_ThrowsObjectDisposed()
    {
        using var temp = new TempDirectory();
        var store = TypedStores.Open<int, int>(TypedStores.InMemory(temp.Path));
        await store.UpsertAsync(1, 1);
        await store.DisposeAsync();
        store.Dispose();

        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.UpsertAsync(1, 2));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.ReadAsync(1));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.DeleteAsync(1));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.ApplyBatchAsync(new WriteBatch<int, int>().Upsert(1, 1)));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.ApplyBatchAsync(new WriteBatch<int, int>()));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.ReadManyAsync([1]));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.UpdateManyAsync([1], (current, writes) => { }));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.CompactAsync());
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await store.CheckpointAsync());
    }

    [Theory]
    [InlineData(DurabilityMode.None)]
    [InlineData(DurabilityMode.Commit)]
    public async Task DisposeRacing1000InFlightOperations_CompletesEachOrRefusesItAsDisposed_AndLosesNoAcknowledgedWrite(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = mode == DurabilityMode.None ? TypedStores.LowMemory(temp.Path) : TypedStores.Durable(temp.Path, mode);
        var store = TypedStores.Open<int, Label>(options);
        for (int i = 0; i < 500; i++)
        {
            await store.UpsertAsync(i, new Label("before", i));
        }

        var acknowledged = new ConcurrentDictionary<int, bool>();
        var unexpected = new ConcurrentQueue<Exception>();
        Task[] operations = Enumerable.Range(0, 1_000).Select(i => Task.Run(async () =>
        {
            try
            {
                switch (i % 4)
                {
                    case 0: await store.UpsertAsync(1_000 + i, new Label("during", i)); acknowledged[1_000 + i] = true; break;
                    case 1: Assert.Equal(new Label("before", i % 500), (await store.ReadAsync(i % 500)).Value); break;
                    case 2: await store.ApplyBatchAsync(new WriteBatch<int, Label>().Upsert(1_000 + i, new Label("during", i))); acknowledged[1_000 + i] = true; break;
                    default: Assert.Equal(2, (await store.ReadManyAsync([i % 500, (i + 1) % 500])).Count(read => read.Found)); break;
                }
            }
            catch (ObjectDisposedException)
            {
            }
            catch (Exception e)
            {
                unexpected.Enqueue(e);
            }
        })).ToArray();

        await Task.Delay(1);
        await store.DisposeAsync();
        await Task.WhenAll(operations);

        Assert.Empty(unexpected);
        if (mode != DurabilityMode.None)
        {
            await using var reopened = TypedStores.Open<int, Label>(options);
            foreach (int key in acknowledged.Keys)
            {
                Assert.Equal(new Label("during", key - 1_000), (await reopened.ReadAsync(key)).Value);
            }
        }
    }
}
