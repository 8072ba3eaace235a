using KeyValueStore.LoadTest.Backends;

namespace KeyValueStore.LoadTest.Tests.Backends;

/// <summary>The in-process Garnet's sizes: powers of two (Garnet rounds down), room for every record twice over, and never below the floors.</summary>
public class GarnetSizingTests
{
    [Theory]
    [InlineData(5_000, 256, 256L << 20)] // 3 MB of records: the 256m floor.
    [InlineData(100_000, 256, 256L << 20)] // 64 MB with headroom: still the floor.
    [InlineData(1_000_000, 256, 1L << 30)] // 640 MB with headroom: the next power of two.
    [InlineData(1_000_000, 1024, 4L << 30)] // 2.2 GB with headroom: 4g, not 2g, which would not hold it.
    public void Memory_HoldsEveryRecordTwice_AsAPowerOfTwo_AtLeast256m(long records, int valueSize, long expected)
    {
        long memory = GarnetSizing.MemoryBytes(records, valueSize);

        Assert.Equal(expected, memory);
        Assert.True(memory >= 2 * records * valueSize);
    }

    [Theory]
    [InlineData(1, 8L << 20)]
    [InlineData(5_000, 8L << 20)]
    [InlineData(1_000_000, 16L << 20)] // 16,000,000 bytes, rounded up.
    [InlineData(10_000_000, 256L << 20)]
    public void Index_Is16BytesARecord_AsAPowerOfTwo_AtLeast8m(long records, long expected)
    {
        Assert.Equal(expected, GarnetSizing.IndexBytes(records));
    }
}
