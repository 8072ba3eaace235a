using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using KeyValueStore.Tests.TypedStore;

namespace KeyValueStore.Tests.Serialization;

/// <summary>
/// <see cref="RecordSerializer{TKey, TValue}"/> gives the bytes the embedded store holds, so that a store on another
/// engine using it (the Redis store) holds the same bytes for the same key and value.
/// </summary>
public class RecordSerializerTests
{
    [Theory]
    [InlineData(10)]
    [InlineData(5_000)]
    public async Task TheBytesTheEmbeddedStoreHolds_AreTheSerializersBytes_CompressedOrNot(int length)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = TypedStores.InMemory(temp.Path);
        await using var store = TypedStores.Open<Label, string>(options);
        var serializer = new RecordSerializer<Label, string>(options.MessagePackSerializerOptions, options.ValueCompressionThresholdBytes, 1 << options.PageSizeBits);
        var key = new Label("key", 7);
        string value = new('v', length);

        await store.UpsertAsync(key, value);

        (bool found, PooledBuffer stored) = await store.Engine.ReadAsync(serializer.SerializeKey(key));
        Assert.True(found);
        byte[] expected = serializer.SerializeValue(value);
        Assert.Equal(expected, stored.Span.ToArray());
        Assert.Equal(length >= options.ValueCompressionThresholdBytes, expected.Length < length);
        Assert.Equal(value, serializer.DeserializeValue(expected));
    }

    [Fact]
    public void AValueOverTheLimit_IsRefusedWithItsSize_BeforeCompression()
    {
        var serializer = new RecordSerializer<int, byte[]>(options: null, valueCompressionThresholdBytes: 1024, maxValueBytes: 1000);

        RecordTooLargeException refused = Assert.Throws<RecordTooLargeException>(() => serializer.SerializeValue(new byte[1000]));

        Assert.Equal(1003, refused.RecordSizeBytes);
        Assert.Equal(1000, refused.PageSizeBytes);
        Assert.Contains("MaxValueBytes", refused.Message, System.StringComparison.Ordinal);
        Assert.Equal(new byte[997], serializer.DeserializeValue(serializer.SerializeValue(new byte[997])).ToArray());
        Assert.True(Enumerable.SequenceEqual(serializer.SerializeKey(5), serializer.SerializeKey(5)));
    }
}
