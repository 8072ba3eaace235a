namespace KeyValueStore.LoadTest.Workloads;

/// <summary>Picks record ids for one worker. Each worker owns its chooser; implementations are not thread-safe.</summary>
internal interface IKeyChooser
{
    /// <summary>Picks an id in [0, <paramref name="count"/>), where <paramref name="count"/> is the number of ids written so far (at least 1); it only grows during a run.</summary>
    long Next(ref SplitMix64 random, long count);
}
