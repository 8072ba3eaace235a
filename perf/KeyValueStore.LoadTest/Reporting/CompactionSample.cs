using System;
using System.Globalization;

namespace KeyValueStore.LoadTest.Reporting;

/// <summary>
/// The store's compaction accounting at one moment: what is on disk against the live data, what compaction has
/// reclaimed, and what it cost the writers. Taken every second of the run and at its end.
/// </summary>
/// <param name="Seconds">Seconds into the run phase; for the end of the run, its length.</param>
/// <param name="BytesOnDisk">The sizes of the store's files.</param>
/// <param name="LogBytes">The log from its begin address to its tail: what the files would hold with no segment awaiting deletion and none preallocated.</param>
/// <param name="LiveBytesEstimate">The live bytes the compactor's threshold follows, as its last passes estimated them; null before its first.</param>
/// <param name="DiskPerLive"><paramref name="BytesOnDisk"/> / <paramref name="LiveBytesEstimate"/>; null without an estimate.</param>
/// <param name="Passes">Compaction passes since the store opened.</param>
/// <param name="LogBytesReclaimed">Log bytes the passes gave back (how far they moved the begin address, less what they copied).</param>
/// <param name="DiskBytesFreed">Bytes of segment files the passes left below the begin address, for truncation to delete.</param>
/// <param name="WritersHeldMs">Total time writers were held out, by checkpoints and by compaction's back-pressure.</param>
/// <param name="LongestWriterHoldMs">The longest single time writers were held out: the longest pause a writer could meet.</param>
/// <param name="BackPressureMs">The part of <paramref name="WritersHeldMs"/> compaction held them because the log was over its bound.</param>
/// <param name="RoomWaitMs">Time writes waited for room under a disk budget (--disk-budget), added up over the writes: they wait side by side.</param>
/// <param name="LongestRoomWaitMs">The longest one write waited for room under a disk budget.</param>
/// <param name="ThresholdBytes">
/// The log size from which compaction runs, as the policy set it after its last pass; writers are held from a quarter
/// above it (or the budget). Null for backends without the store's compactor.
/// </param>
internal sealed record CompactionSample(
    double Seconds,
    long BytesOnDisk,
    long LogBytes,
    long? LiveBytesEstimate,
    double? DiskPerLive,
    long Passes,
    long LogBytesReclaimed,
    long DiskBytesFreed,
    double WritersHeldMs,
    double LongestWriterHoldMs,
    double BackPressureMs,
    double RoomWaitMs = 0,
    double LongestRoomWaitMs = 0,
    long? ThresholdBytes = null)
{
    /// <summary>One line for the progress display and the text report.</summary>
    public string Describe()
    {
        string line = string.Create(
            CultureInfo.InvariantCulture,
            $"disk {Options.ByteSize.Human(BytesOnDisk)} (log {Options.ByteSize.Human(LogBytes)}), {(DiskPerLive is double ratio ? $"{ratio:0.00}x" : "?x")} live, {Passes} passes, {Options.ByteSize.Human(LogBytesReclaimed)} reclaimed, writers held {WritersHeldMs:0} ms (longest {LongestWriterHoldMs:0.0} ms, back-pressure {BackPressureMs:0} ms)");
        return RoomWaitMs > 0
            ? line + string.Create(CultureInfo.InvariantCulture, $", writes waited for room {RoomWaitMs:0} ms in all (longest {LongestRoomWaitMs:0.0} ms)")
            : line;
    }
}
