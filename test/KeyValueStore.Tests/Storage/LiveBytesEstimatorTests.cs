using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

public class LiveBytesEstimatorTests
{
    private const int Keys = 4_000;

    private static byte[] Key(int i) => System.BitConverter.GetBytes(i);

    private static async Task WriteEveryKeyAsync(FasterRecordStore store)
    {
        for (int key = 0; key < Keys; key++)
        {
            await store.UpsertAsync(Key(key), new byte[100]);
        }
    }

    [Fact]
    public async Task ALogWithEveryOtherKeyRewritten_SamplesAboutHalfLive()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await WriteEveryKeyAsync(store);

        long firstRoundEnd = store.FasterKV.Log.TailAddress;
        for (int key = 0; key < Keys; key += 2)
        {
            await store.UpsertAsync(Key(key), new byte[100]);
        }

        LiveBytesSample sample = await store.LiveBytes.SampleAsync(store.FasterKV.Log.BeginAddress, firstRoundEnd);

        Assert.True(sample.SampledBytes > 0);
        Assert.InRange(sample.LiveFraction, 0.4, 0.6);
    }

    [Fact]
    public async Task DeletedKeys_AreNotLive_NorAreTheirDeletes()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await WriteEveryKeyAsync(store);

        for (int key = 0; key < Keys; key++)
        {
            await store.DeleteAsync(Key(key));
        }

        long readOnly = store.FasterKV.Log.SafeReadOnlyAddress;
        LiveBytesSample sample = await store.LiveBytes.SampleAsync(store.FasterKV.Log.BeginAddress, readOnly);

        Assert.True(sample.SampledBytes > 0);
        Assert.Equal(0, sample.LiveBytes);
    }

    [Fact]
    public async Task AnEmptyStretch_SamplesNothing_AndCountsAsLive()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));

        LiveBytesSample sample = await store.LiveBytes.SampleAsync(store.FasterKV.Log.BeginAddress, store.FasterKV.Log.BeginAddress);

        Assert.Equal(0, sample.SampledBytes);
        Assert.Equal(1, sample.LiveFraction);
    }
}
