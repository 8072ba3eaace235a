namespace KeyValueStore.LoadTest.Workloads;

/// <summary>Zipfian over recency: rank 0 is the newest id, rank 1 the one before it, and so on.</summary>
internal sealed class LatestChooser : IKeyChooser
{
    private readonly ZipfianGenerator _ranks;

    public LatestChooser(long initialCount)
    {
        _ranks = new ZipfianGenerator(initialCount);
    }

    public long Next(ref SplitMix64 random, long count) => count - 1 - _ranks.NextRank(ref random, count);
}
