using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Win32.SafeHandles;

namespace KeyValueStore.Storage;

/// <summary>
/// A CRC-32C of every 512-byte sector a durable store writes to its log segments, kept beside each segment in
/// <c>&lt;prefix&gt;.sums.&lt;n&gt;</c> (four bytes per sector, at the sector's index) and checked when the store opens.
/// </summary>
/// <remarks>
/// Why: FASTER reads a zeroed sector as the empty end of a page and skips an invalid record, so a zeroed sector or one
/// flipped valid bit made records vanish silently, whatever the records themselves carry. A checksum over the bytes as
/// they were handed to the disk catches any damage below a checkpoint's tail.
/// <para>
/// The checksums are taken as FASTER writes (<see cref="ChecksummingDevice"/>) and written to disk, flushed, before
/// FASTER writes a checkpoint's metadata (<see cref="ChecksumPersistingCheckpointManager"/>): every sector a checkpoint
/// holds then has its checksum on disk before the checkpoint can be recovered. Memory holds only the checksums not yet
/// written, about 1 MB at most: past that they are written in the background, whatever the checkpoint interval.
/// </para>
/// <para>
/// The sector holding a checkpoint's tail is written again later with more records after the tail, so its checksum on
/// disk may describe newer bytes than the checkpoint holds: recovery checks that sector's bytes before the tail against
/// the checkpoint record instead (<see cref="TailSectorBytes"/>).
/// </para>
/// </remarks>
internal sealed class SectorChecksums
{
    /// <summary>The size of a checksummed sector: FASTER's sector, the unit of every write to a segment.</summary>
    public const int SectorSize = 512;

    /// <summary>The bytes of one checksum in a checksum file.</summary>
    public const int ChecksumSize = sizeof(uint);

    private readonly LogFileLayout _layout;
    private readonly DirectoryDurability _directories;
    private readonly object _lock = new();

    // Held through a whole persist, so that one a checkpoint asks for waits for one already writing in the background,
    // and by a forget, so that a persist that took a segment's checksums before the segment was removed cannot create its
    // file again after the forget deleted it. Taken before _lock, never after.
    private readonly object _persisting = new();
    private readonly int _persistAfterSectors;
    private int _pendingSectors;
    private int _backgroundPersist;

    // A checksum file was created and the directory holding its entry not yet flushed. Cleared only by a flush that
    // succeeded: a persist whose flush failed leaves the file behind, and the next persist, finding it there, must still
    // flush the directory before it returns, as Persist promises. Under _persisting.
    private bool _directoryUnflushed;

    // The checksums recorded since the last persist, in the order the writes were issued: a later run of the same
    // sectors (FASTER writes a partly filled sector again once it holds more) overwrites an earlier one.
    private List<ChecksumRun> _pending = [];

    /// <param name="layout">The store's files.</param>
    /// <param name="directories">Flushes the store's directory when a checksum file is created.</param>
    /// <param name="persistAfterSectors">
    /// How many checksums may wait in memory before they are written in the background, whatever the checkpoint
    /// interval: 256 Ki (1 MB, the checksums of 128 MB of log) by default. Writing early is safe: a later write of the
    /// same sectors overwrites them, and a checkpoint still persists (and flushes) what is left before its metadata.
    /// </param>
    public SectorChecksums(LogFileLayout layout, DirectoryDurability directories, int persistAfterSectors = 1 << 18)
    {
        _layout = layout;
        _directories = directories;
        _persistAfterSectors = persistAfterSectors;
    }

    /// <summary>Records the checksums of the whole sectors in <paramref name="bytes"/>, written at <paramref name="offset"/> of <paramref name="segment"/>.</summary>
    /// <remarks>FASTER writes whole, aligned sectors; a partial sector at either end (never seen) is left unrecorded, and recovery would then refuse it.</remarks>
    public void Record(long segment, long offset, ReadOnlySpan<byte> bytes)
    {
        long firstSector = (offset + SectorSize - 1) / SectorSize;
        int skip = (int)(firstSector * SectorSize - offset);
        if (skip >= bytes.Length)
        {
            return;
        }

        bytes = bytes[skip..];
        uint[] sums = new uint[bytes.Length / SectorSize];
        for (int i = 0; i < sums.Length; i++)
        {
            uint sum = Crc32C.Compute(bytes.Slice(i * SectorSize, SectorSize), 0);
            sums[i] = BitConverter.IsLittleEndian ? sum : BinaryPrimitives.ReverseEndianness(sum);
        }

        bool persistNow;
        lock (_lock)
        {
            _pending.Add(new ChecksumRun(segment, firstSector, sums));
            _pendingSectors += sums.Length;
            persistNow = _pendingSectors >= _persistAfterSectors;
        }

        if (persistNow && Interlocked.CompareExchange(ref _backgroundPersist, 1, 0) == 0)
        {
            ThreadPool.UnsafeQueueUserWorkItem(static checksums => checksums.PersistInBackground(), this, preferLocal: false);
        }
    }

    /// <summary>
    /// Writes the checksums recorded since the last call to their files and flushes them (and the directory, for a file
    /// it created) to disk. Call before a checkpoint's metadata is written.
    /// </summary>
    /// <exception cref="IOException">A file could not be written or flushed; the checksums stay pending.</exception>
    public void Persist()
    {
        lock (_persisting)
        {
            PersistPending();
        }
    }

    private void PersistInBackground()
    {
        try
        {
            Persist();
        }
        catch (Exception)
        {
            // Left pending: the next checkpoint persists them again, and reports the failure as the store's fault. Any
            // exception: on a pool thread one not caught here would end the process.
        }
        finally
        {
            Volatile.Write(ref _backgroundPersist, 0);
        }
    }

    private void PersistPending()
    {
        List<ChecksumRun> pending;
        lock (_lock)
        {
            pending = _pending;
            _pending = [];
            _pendingSectors = 0;
        }

        try
        {
            foreach (IGrouping<long, ChecksumRun> segment in pending.GroupBy(run => run.Segment))
            {
                string path = _layout.SectorChecksumPath(segment.Key);
                _directoryUnflushed |= !File.Exists(path);
                using (SafeFileHandle file = File.OpenHandle(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.ReadWrite | FileShare.Delete))
                {
                    foreach (ChecksumRun run in segment)
                    {
                        RandomAccess.Write(file, MemoryMarshal.AsBytes(run.Sums.AsSpan()), run.FirstSector * ChecksumSize);
                    }

                    RandomAccess.FlushToDisk(file);
                }
            }

            // New files' entries made durable once the files are.
            if (_directoryUnflushed)
            {
                _directories.Flush(_layout.Directory);
                _directoryUnflushed = false;
            }
        }
        catch
        {
            lock (_lock)
            {
                // Older than anything recorded since: written first next time, so the newer runs still win.
                pending.AddRange(_pending);
                _pending = pending;
                _pendingSectors = pending.Sum(run => run.Sums.Length);
            }

            throw;
        }
    }

    /// <summary>Deletes the checksum files of the segments below <paramref name="segment"/>, which the log no longer has.</summary>
    /// <remarks>A file that cannot be deleted is left: nothing reads the checksums of a segment below the log's begin.</remarks>
    /// <remarks>Waits for a persist in progress (see <c>_persisting</c>).</remarks>
    public void ForgetBelow(long segment)
    {
        lock (_persisting)
        {
            lock (_lock)
            {
                _pending.RemoveAll(run => run.Segment < segment);
                _pendingSectors = _pending.Sum(run => run.Sums.Length);
            }

            foreach (LogSegmentFile file in _layout.SectorChecksumFiles().Where(file => file.Number < segment))
            {
                TryDelete(file.Path);
            }
        }
    }

    /// <summary>Deletes the checksum file of <paramref name="segment"/>, which the log no longer has.</summary>
    /// <remarks>Waits for a persist in progress (see <c>_persisting</c>).</remarks>
    public void Forget(long segment)
    {
        lock (_persisting)
        {
            lock (_lock)
            {
                _pending.RemoveAll(run => run.Segment == segment);
                _pendingSectors = _pending.Sum(run => run.Sums.Length);
            }

            TryDelete(_layout.SectorChecksumPath(segment));
        }
    }

    private static void TryDelete(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
        }
    }

    /// <summary>
    /// The bytes of the sector holding <paramref name="tailAddress"/> that lie before it, read from the segment file;
    /// null when the tail is at a sector boundary or nothing was ever flushed there.
    /// </summary>
    public static byte[]? TailSectorBytes(LogFileLayout layout, int segmentSizeBits, long tailAddress)
    {
        int length = (int)(tailAddress % SectorSize);
        long sectorStart = tailAddress - length;
        string path = layout.SegmentPath(sectorStart >> segmentSizeBits);
        if (length == 0 || !File.Exists(path))
        {
            // A log whose tail is FASTER's first address holds no record, and has no segment file yet.
            return null;
        }

        byte[] bytes = new byte[length];
        using SafeFileHandle file = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        return RandomAccess.Read(file, bytes, sectorStart & ((1L << segmentSizeBits) - 1)) == length ? bytes : null;
    }

    /// <summary>The checksums of consecutive sectors of one segment, from one write.</summary>
    private sealed record ChecksumRun(long Segment, long FirstSector, uint[] Sums);
}
