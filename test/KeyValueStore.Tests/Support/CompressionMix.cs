using System;
using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// Writes values that compress and values that do not, around a threshold of <see cref="ThresholdBytes"/>, and what a
/// store's <c>kvstore.value.compression</c> must then say: the same for every implementation, since both compress
/// values the same way (<see cref="RecordSerializer{TKey, TValue}"/>).
/// </summary>
internal static class CompressionMix
{
    /// <summary>The <c>ValueCompressionThresholdBytes</c> the store must have.</summary>
    public const int ThresholdBytes = 1000;

    /// <summary>One value below the threshold, then 100 of zeros (compressible) and 1,000 of random bytes.</summary>
    public static async Task RunAsync(IMixedStorageKVStore<int, byte[]> store)
    {
        var random = new Random(3);
        await store.UpsertAsync(-1, new byte[10]); // Below the threshold: not counted.
        for (int i = 0; i < 100; i++)
        {
            await store.UpsertAsync(i, new byte[2_000]);
        }

        for (int i = 0; i < 1_000; i++)
        {
            var incompressible = new byte[2_000];
            random.NextBytes(incompressible);
            await store.UpsertAsync(i, incompressible);
        }
    }

    /// <summary>Asserts what <paramref name="store"/> last reported for the values of <see cref="RunAsync"/>.</summary>
    public static void AssertRecorded(StoreMeterRecorder meter, string store)
    {
        long Outcome(string outcome) => (long)meter.Of(store, "kvstore.value.compression").Last(m => Equals(m.Tags["kvstore.compression.outcome"], outcome)).Value;
        Assert.Equal(100, Outcome("compressed"));
        // The first 64 random values are tried before attempts back off; about one in sixteen of the rest after that.
        Assert.InRange(Outcome("incompressible"), 64, 400);
        Assert.Equal(1_000, Outcome("incompressible") + Outcome("not_tried"));
    }
}
