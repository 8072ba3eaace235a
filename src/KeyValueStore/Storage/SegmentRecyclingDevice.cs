using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using FASTER.core;

namespace KeyValueStore.Storage;

/// <summary>
/// Keeps the segment files a truncation empties as spares, and gives the next new segment a spare's file, renamed,
/// instead of a file of its own. A spare nothing took within <see cref="SpareLifetime"/> is deleted (checked by a timer
/// that runs only while there are spares).
/// </summary>
/// <remarks>
/// <para>
/// Why: writing a page into a new file makes the operating system find fresh memory for its page cache and, on a file
/// system, allocate the file's blocks; writing it over a file whose pages are still cached does neither. A compacted
/// log gives its oldest segments back while its tail goes on into new ones, so each segment released is a file the
/// tail will soon need: on the 2-core VM the project measures on, whose free memory is handed back to the host, a 2 MB
/// page written into a new file took 5 ms of CPU, over cached pages 0.12 ms, and such a write held a core at each stall
/// of the writers beside a compaction pass (docs/benchmarks.md, "Emptied segment files written again").
/// </para>
/// <para>
/// Spares only ever hold segments the log held a moment before, and no more of them are kept than the log will grow
/// into before it is compacted again (<see cref="KeepSparesWithin"/>: the compaction threshold less the log), but
/// always one: a log over its threshold goes on growing while compaction catches up, and takes it at its next segment.
/// So the files on disk stay within what the log itself reaches. They are counted as the store's disk use
/// (<see cref="SpareBytes"/>) until taken or deleted, and a store that stops writing is back to its log's files within
/// two lifetimes. They are named apart from the segments
/// (<see cref="LogFileLayout.SpareSegmentBasePath"/>), so neither FASTER's nor the store's listing of segments sees them,
/// and any left by a crash are deleted when the device is made.
/// </para>
/// <para>
/// A reused file holds its old segment's bytes past what has been written to it since: reads never go there. FASTER
/// reads a page only below the log's tail (and, recovering, clears the tail's page from the tail on), the store's
/// recovery checks records and sector checksums only below a checkpoint's tail, and a truncated segment is renamed only
/// after FASTER's epoch has moved past the truncation, so no read issued since can name it.
/// </para>
/// <para>
/// Sits directly over FASTER's file device: a truncation renames the files below its segment before FASTER's device
/// closes their handles and deletes what is left, which is then nothing; a write to a segment with no file yet renames a
/// spare to the segment's name before FASTER's device opens it (it opens with <see cref="FileMode.OpenOrCreate"/>).
/// </para>
/// </remarks>
internal sealed class SegmentRecyclingDevice : TruncationPreparingDevice
{
    /// <summary>How long a spare waits to be taken before it is deleted (checked every lifetime, so it may wait up to twice this).</summary>
    public static readonly TimeSpan SpareLifetime = TimeSpan.FromSeconds(30);

    private readonly LogFileLayout _layout;
    private readonly TimeProvider _timeProvider;
    private readonly object _lock = new();

    // Oldest first. The newest is taken first: its pages are the likeliest to be cached still.
    private readonly List<Spare> _spares = [];
    private long _nextSpareNumber;
    // _spares.Count, for SpareBytes to read without the lock.
    private int _spareCount;
    private long _segmentsReused;
    private bool _disposed;
    private Func<long> _room = static () => long.MaxValue;

    // Ticks every lifetime while there are spares; made with the first, disposed at a tick that finds none.
    private ITimer? _expiry;

    // Every segment up to this one has its file (or was written before a spare could be had): a write to it need not
    // look. Lowered when a segment at or below it is removed, as FASTER removes a recovered log's tail past its checkpoint
    // and writes it again.
    private int _highestWithFile = -1;

    /// <param name="inner">FASTER's device of the log's segment files, named after <see cref="LogFileLayout.LogBasePath"/>.</param>
    /// <param name="layout">The store's files: where segments and spares are.</param>
    /// <param name="timeProvider">Times the spares' lifetime.</param>
    public SegmentRecyclingDevice(IDevice inner, LogFileLayout layout, TimeProvider timeProvider)
        : base(inner)
    {
        _layout = layout;
        _timeProvider = timeProvider;
        foreach (LogSegmentFile leftOver in layout.SpareSegments())
        {
            DeleteQuietly(leftOver.Path);
        }
    }

    /// <summary>
    /// Keeps no more spares than <paramref name="roomBytes"/> says the log will grow into before it is compacted again,
    /// but at least one; asked at each segment a truncation empties. Until called, every emptied segment is kept.
    /// </summary>
    public void KeepSparesWithin(Func<long> roomBytes) => _room = roomBytes;

    /// <summary>Gets the bytes of the spare files on disk now.</summary>
    public long SpareBytes => Volatile.Read(ref _spareCount) * Math.Max(0, SegmentSize);

    /// <summary>Gets how many new segments were given a spare's file.</summary>
    public long SegmentsReused => Interlocked.Read(ref _segmentsReused);

    public override void WriteAsync(IntPtr sourceAddress, int segmentId, ulong destinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context)
    {
        EnsureFileFor(segmentId);
        Inner.WriteAsync(sourceAddress, segmentId, destinationAddress, numBytesToWrite, callback, context);
    }

    public override void WriteAsync(IntPtr alignedSourceAddress, ulong alignedDestinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context)
    {
        EnsureFileFor(SegmentOf((long)alignedDestinationAddress));
        Inner.WriteAsync(alignedSourceAddress, alignedDestinationAddress, numBytesToWrite, callback, context);
    }

    /// <summary>Stops the expiry, disposes FASTER's device, then deletes every spare.</summary>
    public override void Dispose()
    {
        Inner.Dispose();
        List<Spare> spares;
        lock (_lock)
        {
            _disposed = true;
            _expiry?.Dispose();
            _expiry = null;
            spares = [.. _spares];
            _spares.Clear();
            Volatile.Write(ref _spareCount, 0);
        }

        foreach (Spare spare in spares)
        {
            DeleteQuietly(spare.Path);
        }
    }

    /// <summary>Deletes the spares that have waited <see cref="SpareLifetime"/> or longer; the timer calls it, tests may too.</summary>
    public void DeleteExpiredSpares()
    {
        var expired = new List<Spare>();
        lock (_lock)
        {
            DateTimeOffset now = _timeProvider.GetUtcNow();
            while (_spares.Count > 0 && now - _spares[0].KeptAt >= SpareLifetime)
            {
                expired.Add(_spares[0]);
                _spares.RemoveAt(0);
            }

            Volatile.Write(ref _spareCount, _spares.Count);
            if (_spares.Count == 0)
            {
                _expiry?.Dispose();
                _expiry = null;
            }
        }

        foreach (Spare spare in expired)
        {
            DeleteQuietly(spare.Path);
        }
    }

    protected override void PrepareToTruncateBelow(int toSegment)
    {
        for (int segment = Inner.StartSegment; segment < toSegment; segment++)
        {
            Keep(segment, writtenAgain: false);
        }
    }

    // A segment removed alone may be written again under its number (a recovered log's tail past its checkpoint).
    protected override void PrepareToRemove(int segment) => Keep(segment, writtenAgain: true);

    // Renames a segment FASTER is about to delete into a spare; when that fails, FASTER deletes it as before. A truncated
    // segment lies below the begin address and is never written again; one that may be must look for a file again.
    private void Keep(int segment, bool writtenAgain)
    {
        if (SegmentSize <= 0)
        {
            return;
        }

        lock (_lock)
        {
            if (_disposed)
            {
                return;
            }

            if (writtenAgain && segment <= _highestWithFile)
            {
                Volatile.Write(ref _highestWithFile, segment - 1);
            }

            string path = _layout.SegmentPath(segment);
            if (!File.Exists(path) || (_spares.Count > 0 && (_spares.Count + 1) * SegmentSize > _room()))
            {
                return;
            }

            string sparePath = _layout.SpareSegmentPath(_nextSpareNumber++);
            try
            {
                File.Move(path, sparePath);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                return;
            }

            _spares.Add(new Spare(sparePath, _timeProvider.GetUtcNow()));
            Volatile.Write(ref _spareCount, _spares.Count);
            _expiry ??= _timeProvider.CreateTimer(static state => ((SegmentRecyclingDevice)state!).DeleteExpiredSpares(), this, SpareLifetime, SpareLifetime);
        }
    }

    // Before the first write to a segment: gives it the newest spare's file, when it has none of its own yet.
    private void EnsureFileFor(int segment)
    {
        if (segment <= Volatile.Read(ref _highestWithFile))
        {
            return;
        }

        lock (_lock)
        {
            if (segment <= _highestWithFile)
            {
                return;
            }

            string path = _layout.SegmentPath(segment);
            if (_spares.Count > 0 && !_disposed && !File.Exists(path))
            {
                Spare spare = _spares[^1];
                _spares.RemoveAt(_spares.Count - 1);
                Volatile.Write(ref _spareCount, _spares.Count);
                try
                {
                    File.Move(spare.Path, path);
                    Interlocked.Increment(ref _segmentsReused);
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    // FASTER's device makes a new file, as it would have without spares.
                    DeleteQuietly(spare.Path);
                }
            }

            Volatile.Write(ref _highestWithFile, segment);
        }
    }

    private static void DeleteQuietly(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Left behind: the next device made over this directory deletes it.
        }
    }

    private readonly record struct Spare(string Path, DateTimeOffset KeptAt);
}
