using KeyValueStore.LoadTest.Measurement;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// An optional capability of a backend: marks of its background work (compaction passes, checkpoints), taken before and
/// after each operation, so the run can tell what ran beside it and split the latencies so.
/// </summary>
internal interface IBackgroundWorkObserver
{
    /// <summary>Reads the background work now: cheap enough to take twice per operation.</summary>
    BackgroundMarks Mark();
}
