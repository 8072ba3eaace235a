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

    /// <summary>Gets the passes completed.</summary>
    public long Passes => Interlocked.Read(ref _passes);

    /// <summary>Gets the log bytes the passes gave back: how far they moved the begin address, less what they copied.</summary>
    public long LogBytesReclaimed => Interlocked.Read(ref _logBytesReclaimed);

    /// <summary>Gets the bytes of segment files the passes left wholly below the begin address, for truncation to delete.</summary>
    public long DiskBytesFreed => Interlocked.Read(ref _diskBytesFreed);

    /// <summary>Gets the total time writers were held out because the log was over the back-pressure bound.</summary>
    public TimeSpan BackPressure => TimeSpan.FromTicks(Interlocked.Read(ref _backPressureTicks));

    /// <summary>Records one completed pass.</summary>
    public void RecordPass(long logBytesReclaimed, long diskBytesFreed)
    {
        Interlocked.Increment(ref _passes);
        Interlocked.Add(ref _logBytesReclaimed, logBytesReclaimed);
        Interlocked.Add(ref _diskBytesFreed, diskBytesFreed);
    }

    /// <summary>Records one stretch of writers held out by back-pressure.</summary>
    public void RecordBackPressure(TimeSpan held) => Interlocked.Add(ref _backPressureTicks, held.Ticks);
}
