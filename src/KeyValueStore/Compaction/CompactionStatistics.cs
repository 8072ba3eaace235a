using System;
using System.Threading;

namespace KeyValueStore.Compaction;

/// <summary>
/// What compaction has done since the store opened and what it cost the writers, for the load test, logs and metrics.
/// Updated by one pass at a time, read from any thread.
/// </summary>
internal sealed class CompactionStatistics
{
    private long _passes;
    private long _logBytesReclaimed;
    private long _diskBytesFreed;
    private long _backPressureTicks;
    private long _roomWaitTicks;
    private long _longestRoomWaitTicks;
    private long _restTicks;

    /// <summary>Gets the passes completed.</summary>
    public long Passes => Interlocked.Read(ref _passes);

    /// <summary>Gets the log bytes the passes gave back: how far they moved the begin address, less what they copied.</summary>
    public long LogBytesReclaimed => Interlocked.Read(ref _logBytesReclaimed);

    /// <summary>Gets the bytes of segment files the passes left wholly below the begin address, for truncation to delete.</summary>
    public long DiskBytesFreed => Interlocked.Read(ref _diskBytesFreed);

    /// <summary>
    /// Gets the total time compaction held writers out: while the log was over the back-pressure bound, and in the pauses
    /// that slow them short of it (<see cref="CompactionThresholdPolicy.WriterHoldShare"/>).
    /// </summary>
    public TimeSpan BackPressure => TimeSpan.FromTicks(Interlocked.Read(ref _backPressureTicks));

    /// <summary>
    /// Gets the time writes waited for room under the log's disk budget, added up over the writes (they wait side by
    /// side, so this can exceed the time that passed).
    /// </summary>
    public TimeSpan WaitedForRoom => TimeSpan.FromTicks(Interlocked.Read(ref _roomWaitTicks));

    /// <summary>Gets the longest one write waited for room under the log's disk budget.</summary>
    public TimeSpan LongestWaitForRoom => TimeSpan.FromTicks(Interlocked.Read(ref _longestRoomWaitTicks));

    /// <summary>Gets the time passes rested between slices, leaving the disk and the cores to the foreground (<see cref="CompactionThresholdPolicy.RestAfterSlice"/>).</summary>
    public TimeSpan Rested => TimeSpan.FromTicks(Interlocked.Read(ref _restTicks));

    /// <summary>Records one completed pass.</summary>
    public void RecordPass(long logBytesReclaimed, long diskBytesFreed)
    {
        Interlocked.Increment(ref _passes);
        Interlocked.Add(ref _logBytesReclaimed, logBytesReclaimed);
        Interlocked.Add(ref _diskBytesFreed, diskBytesFreed);
    }

    /// <summary>Records one rest of a pass between two slices.</summary>
    public void RecordRest(TimeSpan rested) => Interlocked.Add(ref _restTicks, rested.Ticks);

    /// <summary>Records one stretch of writers held out by back-pressure, a hold or a pause.</summary>
    public void RecordBackPressure(TimeSpan held) => Interlocked.Add(ref _backPressureTicks, held.Ticks);

    /// <summary>Records one write's wait for room under the log's disk budget, however it ended.</summary>
    public void RecordWaitForRoom(TimeSpan waited)
    {
        Interlocked.Add(ref _roomWaitTicks, waited.Ticks);
        long longest = Interlocked.Read(ref _longestRoomWaitTicks);
        while (waited.Ticks > longest)
        {
            long before = Interlocked.CompareExchange(ref _longestRoomWaitTicks, waited.Ticks, longest);
            if (before == longest)
            {
                return;
            }

            longest = before;
        }
    }
}
