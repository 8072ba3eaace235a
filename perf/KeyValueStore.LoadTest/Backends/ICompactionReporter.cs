using KeyValueStore.LoadTest.Reporting;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// An optional capability of a backend: its compaction's accounting (disk against live data, what was reclaimed, what
/// writers waited), sampled every second of the run and at its end.
/// </summary>
internal interface ICompactionReporter
{
    /// <summary>Takes a sample now, <paramref name="seconds"/> into the run.</summary>
    CompactionSample SampleCompaction(double seconds);
}
