using System;
using System.Collections.Concurrent;
using System.IO;
using System.Threading;
using FASTER.core;
using KeyValueStore.Concurrency;
using Microsoft.Win32.SafeHandles;

namespace KeyValueStore.Storage;

/// <summary>
/// Answers a read of a record on disk at once, on the calling thread, when the operating system's page cache holds it
/// (<see cref="NonBlockingFileRead"/>); a read the cache cannot answer goes to the device under it as before.
/// </summary>
/// <remarks>
/// <para>
/// Why: FASTER reads a record that left the log's memory through the device's asynchronous path, a file read on a
/// pool thread and a completion handed back, even when the bytes are in the page cache, as they are for a log that fits
/// the machine's memory; that path costs more than the read (SQLite, which reads the cache synchronously, served more
/// reads per second: issue 19). FASTER takes a completion called before <c>ReadAsync</c> returns: the read is then
/// ready when the session looks for it, and completes without a thread switch.
/// </para>
/// <para>
/// Only reads of up to <see cref="LargestReadNow"/> bytes inside one segment, the size of a record's read, are tried:
/// a scan's page reads stay asynchronous, so that several are in flight at once. The files are opened again, for
/// reading, one handle per segment, closed when FASTER removes the segment or the device is disposed. A truncation
/// removes segments from the log's start, and FASTER deletes their files only once no thread can still be reading them
/// (its epoch): until then a late read must not open a handle of ours again, which nothing would close (a deleted
/// file's blocks stay allocated while a handle is open), so reads below the lowest segment kept go to the device under
/// this one. A single segment removed otherwise (the tail past a recovered checkpoint, which FASTER trims before any
/// read and then writes again under the same numbers) is only closed. Writes never reach a range FASTER reads from disk
/// (a page is read only once it is below the log's head, after its last flush), so the cache holds what the device
/// holds.
/// </para>
/// <para>
/// FASTER reads a record longer than a sector twice, the second time from inside the first read's completion
/// (<see cref="RecordReadAhead"/>). Once such a second read has been seen, every record's read takes as many bytes past
/// its request as the longest second read lately needed (up to <see cref="RecordReadAhead.Capacity"/> in all), and the
/// second read is copied from them. A small record needs a second read too when it crosses a sector boundary, so a
/// store of 64-byte values learns to read 512 bytes ahead (its reads measured unchanged). What is learnt lasts a period
/// of <see cref="ReadsPerPeriod"/> reads on a thread: at its end the device reads as far ahead as the period's second
/// reads needed, so a store whose long records are gone, or came once, goes back to reading what its records need.
/// A long record after that is read twice once more, and learnt again.
/// </para>
/// </remarks>
internal sealed unsafe class PageCacheFirstDevice(IDevice inner) : TruncationPreparingDevice(inner)
{
    /// <summary>The largest read answered at once: a record's read; a scan reads whole pages.</summary>
    public const uint LargestReadNow = 64 * 1024;

    /// <summary>How many reads on one thread make a period, at whose end the device reads as far ahead as that period's second reads needed.</summary>
    public const int ReadsPerPeriod = 4096;

    private readonly ConcurrentDictionary<int, SafeFileHandle> _segments = new();
    private int _unsupported = NonBlockingFileRead.MayBeSupported ? 0 : 1;
    private int _lowestSegmentKept;

    // Counted per processor: every read counts one, and a counter shared by the cores (beside the read-ahead every read
    // looks at) was a cache line travelling between them at each read.
    private readonly PerProcessorCount _readsAnsweredNow = new();
    private readonly PerProcessorCount _readsAnsweredAhead = new();
    private readonly PerProcessorCount _readsPassedOn = new();
    private int _readAheadBytes;

    // The most a second read has needed since the current period began.
    private int _neededThisPeriod;

    /// <summary>Gets how many reads the page cache answered at once.</summary>
    public long ReadsAnsweredNow => _readsAnsweredNow.Sum();

    /// <summary>Gets how many reads were copied from bytes an earlier read of the same record took past its request (<see cref="RecordReadAhead"/>).</summary>
    public long ReadsAnsweredAhead => _readsAnsweredAhead.Sum();

    /// <summary>Gets how many bytes past its request a record's read takes now: the most a second read of a record needed in the latest period (or since, when more), 0 before one was seen.</summary>
    public int ReadAheadBytes => Volatile.Read(ref _readAheadBytes);

    /// <summary>Gets how many reads went to the device under this one: not cached, too large, or the call not offered here.</summary>
    public long ReadsPassedOn => _readsPassedOn.Sum();

    public override void ReadAsync(ulong alignedSourceAddress, IntPtr alignedDestinationAddress, uint aligned_read_length, DeviceIOCompletionCallback callback, object context)
    {
        long segmentSize = SegmentSize;
        if (segmentSize <= 0
            || !AnsweredNow((int)((long)alignedSourceAddress / segmentSize), (long)alignedSourceAddress % segmentSize, alignedDestinationAddress, aligned_read_length, callback, context))
        {
            Inner.ReadAsync(alignedSourceAddress, alignedDestinationAddress, aligned_read_length, callback, context);
        }
    }

    public override void ReadAsync(int segmentId, ulong sourceAddress, IntPtr destinationAddress, uint readLength, DeviceIOCompletionCallback callback, object context)
    {
        if (!AnsweredNow(segmentId, (long)sourceAddress, destinationAddress, readLength, callback, context))
        {
            Inner.ReadAsync(segmentId, sourceAddress, destinationAddress, readLength, callback, context);
        }
    }

    public override void Dispose()
    {
        Volatile.Write(ref _unsupported, 1);
        CloseBelow(int.MaxValue);
        Inner.Dispose();
    }

    /// <summary>
    /// Answers the read from the bytes a read of the same record on this thread took ahead, or else from the page cache,
    /// and completes it at once; false, counted as passed on, when the device must read it.
    /// </summary>
    private bool AnsweredNow(int segment, long offset, IntPtr destination, uint length, DeviceIOCompletionCallback callback, object context)
    {
        // A page's read, or a platform without the call: no thread's read-ahead is made for it.
        if (length > LargestReadNow || Volatile.Read(ref _unsupported) != 0 || (SegmentSize > 0 && offset + length > SegmentSize))
        {
            _readsPassedOn.Increment();
            return false;
        }

        RecordReadAhead readAhead = RecordReadAhead.OfThisThread;
        if (readAhead.CountReadEndingPeriod(ReadsPerPeriod))
        {
            Volatile.Write(ref _readAheadBytes, Interlocked.Exchange(ref _neededThisPeriod, 0));
        }

        // A second read of a record that bytes read ahead could hold: what it needed counts, whether or not they did.
        uint need = length <= RecordReadAhead.Capacity ? readAhead.NeedOf(this, segment, offset, length) : 0;
        if (need > 0)
        {
            RaiseTo(ref _neededThisPeriod, need);
        }

        if (readAhead.TryCopy(this, segment, offset, destination, length))
        {
            _readsAnsweredAhead.Increment();
            callback(0, length, context);
            return true;
        }

        // A second read the bytes read ahead did not hold: later reads take what it needed more.
        if (need > 0)
        {
            RaiseTo(ref _readAheadBytes, need);
        }

        uint ahead = ReadAheadFor(offset, length);
        if (!TryReadNow(segment, offset, ahead > 0 ? readAhead.Buffer : destination, length, ahead, out uint read))
        {
            _readsPassedOn.Increment();
            return false;
        }

        if (ahead > 0)
        {
            readAhead.Filled();
            new ReadOnlySpan<byte>((void*)readAhead.Buffer, (int)length).CopyTo(new Span<byte>((void*)destination, (int)length));
        }

        using (readAhead.Hold(this, segment, offset, length, ahead > 0 ? read : 0))
        {
            callback(0, length, context);
        }

        return true;
    }

    /// <summary>Raises <paramref name="target"/> to <paramref name="value"/> unless it is already as high.</summary>
    private static void RaiseTo(ref int target, uint value)
    {
        int current;
        while (value > (uint)(current = Volatile.Read(ref target)))
        {
            if (Interlocked.CompareExchange(ref target, (int)value, current) == current)
            {
                return;
            }
        }
    }

    /// <summary>How many bytes past a read of <paramref name="length"/> bytes at <paramref name="offset"/> to take: as learnt, within the capacity and the segment.</summary>
    private uint ReadAheadFor(long offset, uint length)
    {
        long ahead = Math.Min(Volatile.Read(ref _readAheadBytes), RecordReadAhead.Capacity - (long)length);
        if (SegmentSize > 0)
        {
            ahead = Math.Min(ahead, SegmentSize - offset - length);
        }

        return ahead > 0 ? (uint)ahead : 0;
    }

    /// <summary>Reads <paramref name="length"/> bytes, and up to <paramref name="ahead"/> more, from the page cache into <paramref name="destination"/>; <paramref name="read"/> says how many.</summary>
    private bool TryReadNow(int segment, long offset, IntPtr destination, uint length, uint ahead, out uint read)
    {
        read = 0;
        SafeFileHandle? handle = HandleOf(segment);
        if (handle is null)
        {
            return false;
        }

        bool referenced = false;
        try
        {
            handle.DangerousAddRef(ref referenced);
            switch (NonBlockingFileRead.TryReadAtLeast(handle.DangerousGetHandle(), destination, length + ahead, length, offset, out read))
            {
                case NonBlockingReadResult.Read:
                    _readsAnsweredNow.Increment();
                    return true;
                case NonBlockingReadResult.Unsupported:
                    Volatile.Write(ref _unsupported, 1);
                    return false;
                default:
                    return false;
            }
        }
        catch (ObjectDisposedException)
        {
            return false; // The segment was removed meanwhile: the device under this one knows what to do.
        }
        finally
        {
            if (referenced)
            {
                handle.DangerousRelease();
            }
        }
    }

    /// <summary>The segment's read handle, opened on first use; null when its file cannot be opened (not written yet, or removed) or it lies below the truncation.</summary>
    private SafeFileHandle? HandleOf(int segment)
    {
        if (_segments.TryGetValue(segment, out SafeFileHandle? handle))
        {
            return handle;
        }

        if (segment < Volatile.Read(ref _lowestSegmentKept))
        {
            return null;
        }

        SafeFileHandle opened;
        try
        {
            opened = File.OpenHandle($"{FileName}.{segment}", FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            // The files cannot be opened again for reading here: every read takes the device's own path from now on.
            Volatile.Write(ref _unsupported, 1);
            return null;
        }

        if (!_segments.TryAdd(segment, opened))
        {
            opened.Dispose();
            return _segments.TryGetValue(segment, out handle) ? handle : null;
        }

        // Truncated while it was being opened: the truncation may have closed the handles before this one was added.
        if (segment < Volatile.Read(ref _lowestSegmentKept))
        {
            Close(segment);
            return null;
        }

        return opened;
    }

    protected override void PrepareToRemove(int segment) => Close(segment);

    protected override void PrepareToTruncateBelow(int toSegment) => CloseBelow(toSegment);

    private void Close(int segment)
    {
        if (_segments.TryRemove(segment, out SafeFileHandle? handle))
        {
            handle.Dispose();
        }
    }

    /// <summary>Marks the segments below <paramref name="segment"/> truncated, so that no read opens them again, and closes their handles.</summary>
    private void CloseBelow(int segment)
    {
        Utility.MonotonicUpdate(ref _lowestSegmentKept, segment, out _);
        foreach (int open in _segments.Keys)
        {
            if (open < segment)
            {
                Close(open);
            }
        }
    }
}
