using System.Collections.Generic;

namespace KeyValueStore.LoadTest.Reporting;

/// <summary>The compaction accounting of a backend that reports it (<see cref="Backends.ICompactionReporter"/>): at the end of the run, and every second of it.</summary>
/// <param name="End">At the end of the run phase.</param>
/// <param name="PeakDiskPerLive">The highest disk/live ratio the seconds of the run showed; null without an estimate.</param>
/// <param name="EverySecond">One sample per second of the run phase.</param>
internal sealed record CompactionReport(CompactionSample End, double? PeakDiskPerLive, IReadOnlyList<CompactionSample> EverySecond);
