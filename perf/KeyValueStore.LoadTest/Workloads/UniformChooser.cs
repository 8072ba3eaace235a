namespace KeyValueStore.LoadTest.Workloads;

/// <summary>Every id equally likely.</summary>
internal sealed class UniformChooser : IKeyChooser
{
    public long Next(ref SplitMix64 random, long count) => random.NextBelow(count);
}
