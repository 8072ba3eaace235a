using System;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>Makes the chooser of a distribution, one per worker.</summary>
internal static class KeyChoosers
{
    public static IKeyChooser Create(KeyDistribution distribution, long initialCount) => distribution switch
    {
        KeyDistribution.Uniform => new UniformChooser(),
        KeyDistribution.Zipfian => new ScrambledZipfianChooser(initialCount),
        KeyDistribution.Latest => new LatestChooser(initialCount),
        _ => throw new ArgumentOutOfRangeException(nameof(distribution), distribution, "Unknown key distribution."),
    };
}
