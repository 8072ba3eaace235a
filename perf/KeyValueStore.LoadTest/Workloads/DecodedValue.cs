namespace KeyValueStore.LoadTest.Workloads;

/// <summary>What a value says about itself: its record id, its version, and whether its filler is intact.</summary>
internal readonly record struct DecodedValue(long Id, long Version, bool FillerIntact);
