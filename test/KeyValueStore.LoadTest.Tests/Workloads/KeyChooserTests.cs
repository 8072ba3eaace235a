using System.Linq;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Tests.Workloads;

public class KeyChooserTests
{
    private const int Draws = 200_000;

    [Theory]
    [InlineData("Uniform")]
    [InlineData("Zipfian")]
    [InlineData("Latest")]
    public void EveryChoice_IsAnExistingId_AlsoWhenTheCountGrows(string distribution)
    {
        IKeyChooser chooser = KeyChoosers.Create(System.Enum.Parse<KeyDistribution>(distribution), 1000);
        var random = new SplitMix64(3);
        for (long count = 1000; count < 1200; count++)
        {
            for (int i = 0; i < 100; i++)
            {
                Assert.InRange(chooser.Next(ref random, count), 0, count - 1);
            }
        }

        Assert.Equal(0, chooser.Next(ref random, 1));
    }

    [Fact]
    public void Zipfian_MakesAFewKeysHot_AndScattersThem()
    {
        long[] hits = Histogram(KeyChoosers.Create(KeyDistribution.Zipfian, 10_000), 10_000);
        long[] hottest = Enumerable.Range(0, hits.Length).OrderByDescending(id => hits[id]).Take(10).Select(id => (long)id).ToArray();

        // Theta 0.99 over 10,000 keys: the hottest key alone takes about 10% of the draws (1/zeta(10000)).
        Assert.InRange(hits.Max() / (double)Draws, 0.08, 0.13);
        // Scrambled: the hot keys are not the first ids loaded.
        Assert.True(hottest.Count(id => id < 10) < 3, $"hot keys {string.Join(", ", hottest)}");
    }

    [Fact]
    public void Latest_FavoursTheNewestIds()
    {
        long[] hits = Histogram(KeyChoosers.Create(KeyDistribution.Latest, 10_000), 10_000);

        Assert.Equal(9_999, System.Array.IndexOf(hits, hits.Max()));
        Assert.True(hits[9_998] > hits[5_000]);
    }

    [Fact]
    public void Uniform_SpreadsEvenly()
    {
        long[] hits = Histogram(KeyChoosers.Create(KeyDistribution.Uniform, 100), 100);

        Assert.All(hits, count => Assert.InRange(count, Draws / 100 * 0.9, Draws / 100 * 1.1));
    }

    [Theory]
    [InlineData(3L)]
    [InlineData(10L)]
    [InlineData(1_000L)]
    [InlineData(100_000L)]
    [InlineData(1L << 20)]
    public void TheScrambleStride_IsCoprimeWithTheCount_SoTheScrambleIsABijection(long count)
    {
        long stride = ScrambledZipfianChooser.StrideFor(count);
        long a = stride, b = count;
        while (b != 0)
        {
            (a, b) = (b, a % b);
        }

        Assert.Equal(1, a);
    }

    private static long[] Histogram(IKeyChooser chooser, long count)
    {
        var random = new SplitMix64(11);
        long[] hits = new long[count];
        for (int i = 0; i < Draws; i++)
        {
            hits[chooser.Next(ref random, count)]++;
        }

        return hits;
    }
}
