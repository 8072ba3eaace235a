using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Reads a window of the log that lies on the disk for the live estimate (<see cref="LiveBytesEstimator"/>): a chunk of
/// at most <see cref="ChunkBytes"/> at a time straight from the log's device, walking the records' headers as FASTER's
/// scan would (<see cref="LogRecordLayout"/>). One reader, and its one buffer, serves the windows of one sample in turn.
/// </summary>
/// <remarks>
/// Why not FASTER's scan: in 2.6.5 a scan of a page on the disk loads it into a frame of its own, a pinned array the
/// size of a page, zeroed, and reads the page from its first byte to the window's end, for the 64 records a window
/// takes. With 8 MB pages a sample of 16 windows allocated and zeroed 128 MB, and a 1 GB load that took an estimate each
/// time the log doubled peaked 200 MB higher in working set. A window needs only its records' headers and keys: a
/// record's value is stepped over, read only when a chunk is read past it.
/// <para>
/// Reads go through the device FASTER reads the log with, so a failing disk reaches the store's fault as FASTER's own
/// reads do, and a read the failed disk never answers is given up on (<see cref="StoreFault.WaitUnlessFaultedAsync{T}"/>);
/// the buffer stays referenced by the read's context until the device is done with it. Only pages below the head
/// address are read here: they are on the disk and no longer change but for header bits a walk ignores.
/// </para>
/// </remarks>
internal sealed class DiskWindowReader
{
    /// <summary>The most one read of the device takes: a window's 64 records of a kilobyte, about.</summary>
    public const int ChunkBytes = 64 << 10;

    private readonly IDevice _device;
    private readonly StoreFault _fault;
    private readonly long _pageMask;
    private readonly long _sectorMask;
    private readonly byte[] _buffer;
    private readonly int _bufferOffset;
    private readonly IntPtr _destination;

    // The log's bytes [_chunkStart, _chunkEnd) are in the buffer from _bufferOffset on; none before the first read.
    private long _chunkStart = -1;
    private long _chunkEnd = -1;

    public DiskWindowReader(IDevice device, StoreFault fault, int pageSizeBits)
    {
        _device = device;
        _fault = fault;
        _pageMask = (1L << pageSizeBits) - 1;
        int sectorBytes = (int)Math.Max(device.SectorSize, 1);
        _sectorMask = sectorBytes - 1;

        // Pinned, so the device may write into it; aligned to a sector, as unbuffered devices require.
        _buffer = GC.AllocateArray<byte>(ChunkBytes + sectorBytes, pinned: true);
        (_bufferOffset, _destination) = Aligned(_buffer, sectorBytes);
    }

    /// <summary>Reads up to <paramref name="maxRecords"/> records from <paramref name="start"/>, a record's start, without passing <paramref name="end"/>, the end of its page or sooner.</summary>
    /// <param name="start">Where the window begins: a record's start.</param>
    /// <param name="end">Where it ends: its page's end, or sooner.</param>
    /// <param name="maxRecords">The most records it takes.</param>
    /// <param name="cancellationToken">Gives up a read of the device under way (its buffer stays with the read) and the window with it.</param>
    /// <exception cref="StoreFaultedException">The store's disk failed while the window was read.</exception>
    public async Task<SampledWindow> ReadAsync(long start, long end, int maxRecords, CancellationToken cancellationToken)
    {
        var records = new List<SampledRecord>(maxRecords);
        long pageEnd = (start | _pageMask) + 1;
        long address = start;
        while (records.Count < maxRecords && address < end)
        {
            int size = SizeAt(address);
            if (size == LogRecordLayout.Truncated && _chunkStart != (address & ~_sectorMask))
            {
                await LoadAsync(address & ~_sectorMask, pageEnd, cancellationToken).ConfigureAwait(false);
                continue;
            }

            // A damaged length, or a key longer than a chunk: FASTER's scan would skip to the next page, so the rest of
            // the window counts as read, with nothing live in it (the safe side: compaction then comes sooner).
            if (size < 0 || address + size > pageEnd)
            {
                address = end;
                break;
            }

            ReadOnlySpan<byte> record = Held(address);
            long header = LogRecordLayout.Header(record);

            // A delete is never live: compaction drops it, and its key's latest record is no record at all.
            if (!LogRecordLayout.IsSkippedByScan(header) && (header & LogRecordLayout.TombstoneBit) == 0)
            {
                records.Add(new SampledRecord(LogRecordLayout.Key(record).ToArray(), new RecordLocation(address, header & LogRecordLayout.PreviousAddressMask), size));
            }

            address += size;
        }

        // Up to the end of the last record read, or of the window once it ran out: deletes, invalid records and padding included.
        long covered = records.Count >= maxRecords ? address : Math.Max(address, end);
        return new SampledWindow(covered - start, records);
    }

    /// <summary>The size of what starts at <paramref name="address"/> (an empty header is a step of its length), or <see cref="LogRecordLayout.Truncated"/> when the buffer does not hold enough of it.</summary>
    private int SizeAt(long address)
    {
        ReadOnlySpan<byte> bytes = Held(address);
        if (bytes.Length < LogRecordLayout.HeaderBytes)
        {
            return LogRecordLayout.Truncated;
        }

        return LogRecordLayout.Header(bytes) == 0 ? LogRecordLayout.HeaderBytes : LogRecordLayout.RecordSize(bytes);
    }

    /// <summary>The buffer's bytes from <paramref name="address"/> to the chunk's end; empty when the chunk does not hold it.</summary>
    private ReadOnlySpan<byte> Held(long address) =>
        address >= _chunkStart && address < _chunkEnd
            ? _buffer.AsSpan(_bufferOffset + (int)(address - _chunkStart), (int)(_chunkEnd - address))
            : default;

    /// <summary>Reads the log from <paramref name="from"/>, a sector's start, up to a chunk and not past <paramref name="pageEnd"/>.</summary>
    private async Task LoadAsync(long from, long pageEnd, CancellationToken cancellationToken)
    {
        int length = (int)Math.Min(ChunkBytes, pageEnd - from);
        _chunkStart = _chunkEnd = -1;
        var read = new ChunkRead(_buffer);
        _device.ReadAsync((ulong)from, _destination, (uint)length, ChunkRead.Complete, read);

        (uint error, uint bytesRead) = await _fault.WaitUnlessFaultedAsync(read.Task.WaitAsync(cancellationToken)).ConfigureAwait(false);
        if (error != 0)
        {
            _fault.ThrowIfFaulted();
            throw new IOException($"A read of {length} bytes of the log at address {from} failed with error {error}.");
        }

        _chunkStart = from;
        _chunkEnd = from + Math.Min(length, bytesRead);
    }

    /// <summary>The first offset in <paramref name="pinned"/> at a multiple of <paramref name="alignment"/>, and its address, which stays (the array never moves).</summary>
    private static unsafe (int Offset, IntPtr Address) Aligned(byte[] pinned, int alignment)
    {
        fixed (byte* first = &pinned[0])
        {
            long misalignment = (long)first & (alignment - 1);
            int offset = misalignment == 0 ? 0 : (int)(alignment - misalignment);
            return (offset, (IntPtr)(first + offset));
        }
    }

    /// <summary>One read in flight: its completion, and the buffer it fills, kept alive for as long as the device holds the read.</summary>
    /// <remarks>
    /// Its continuation runs on the thread pool, never inside the device's completion: a next chunk's read issued from
    /// there would look to <see cref="PageCacheFirstDevice"/> like FASTER's second read of a record.
    /// </remarks>
    private sealed class ChunkRead(byte[] buffer) : TaskCompletionSource<(uint Error, uint BytesRead)>(TaskCreationOptions.RunContinuationsAsynchronously)
    {
        public static readonly DeviceIOCompletionCallback Complete = static (errorCode, numBytes, context) => ((ChunkRead)context).TrySetResult((errorCode, numBytes));

        public byte[] Buffer { get; } = buffer;
    }
}
