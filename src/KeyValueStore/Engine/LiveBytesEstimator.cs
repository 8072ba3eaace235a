using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Compaction;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Estimates the live bytes of the log (<see cref="EstimateLiveBytes"/>): the read-only part as live as a sample of its
/// records, the mutable part live whole. The sample scans a few short windows spread evenly across the read-only part,
/// each from a page boundary (the only addresses sure to start a record), and checks each record found with a locating
/// read, as the compaction's copier does.
/// </summary>
/// <remarks>
/// Why a sample: the live share of the log varies with the records' age (the oldest part holds the most garbage), so the
/// part a compaction copied says little about the newer part it left. Reading every record would cost as much as a
/// compaction; a thousand records give the share to a few percent.
/// <para>
/// Why the mutable part counts live whole: it is the newest data, and a write there updates its record in place rather
/// than leaving a dead one behind. It is also the part a scan must not read: its records may still be being written.
/// </para>
/// <para>
/// Writers go on while the windows are read and the records checked. What they append meanwhile replaces live records
/// rather than adding to them, so it is not counted: the mutable part is taken as it was when the estimate began.
/// (Counting it made an estimate of unpaced overwrites grow with the log it should bound: the disk went to 32 times
/// the live data.) A check does find dead a record superseded a moment before it, so under heavy overwrites the
/// estimate runs somewhat low; the checks overlap, each in its own session, to keep that moment short. Low is the
/// safe side: compaction then runs earlier, never later.
/// </para>
/// <para>
/// A window on the disk is read straight from the log's device, a chunk at a time (<see cref="DiskWindowReader"/>, which
/// says why not FASTER's scan); a window in memory through FASTER's scan, which reads it in place. A store built on a
/// caller's FasterKV has no device known to the engine: its windows go through FASTER's scan, which loads a frame the
/// size of a page for each window on the disk, so large pages get fewer windows there (<see cref="WindowsFor"/>): the
/// frames of one sample stay within <see cref="FrameBudgetBytes"/>, or <see cref="MinWindows"/> pages.
/// </para>
/// </remarks>
internal sealed class LiveBytesEstimator
{
    /// <summary>The most windows one sample scans.</summary>
    public const int MaxWindows = 16;

    /// <summary>The fewest windows one sample scans, however large the pages, when the stretch has that many pages.</summary>
    public const int MinWindows = 4;

    /// <summary>How many records one window reads at most.</summary>
    public const int RecordsPerWindow = 64;

    /// <summary>How many records are checked at once, each in its own session.</summary>
    public const int Checkers = 8;

    /// <summary>The page frames one sample through FASTER's scan alone may load from the disk: large pages get fewer windows.</summary>
    public const long FrameBudgetBytes = 128L << 20;

    private readonly FasterKV<SpanByte, SpanByte> _store;
    private readonly IDevice? _device;
    private readonly Func<StoreSession> _newSession;
    private readonly StoreFault _fault;
    private readonly int _pageSizeBits;
    private readonly long _pageMask;

    /// <param name="store">The FASTER store whose log is estimated.</param>
    /// <param name="device">The log's device, which windows on the disk are read from; null for a caller's FasterKV, whose windows FASTER's scan reads.</param>
    /// <param name="newSession">Makes the sessions that check records.</param>
    /// <param name="fault">The store's fault, which ends a sample once the disk fails.</param>
    /// <param name="pageSizeBits">The log's page size.</param>
    public LiveBytesEstimator(FasterKV<SpanByte, SpanByte> store, IDevice? device, Func<StoreSession> newSession, StoreFault fault, int pageSizeBits)
    {
        _store = store;
        _device = device;
        _newSession = newSession;
        _fault = fault;
        _pageSizeBits = pageSizeBits;
        _pageMask = (1L << pageSizeBits) - 1;
    }

    /// <summary>How many windows a sample of a log with pages of 2^<paramref name="pageSizeBits"/> bytes scans.</summary>
    public static int WindowsFor(int pageSizeBits) => (int)Math.Clamp(FrameBudgetBytes >> pageSizeBits, MinWindows, MaxWindows);

    /// <inheritdoc cref="EstimateLiveBytes"/>
    /// <remarks>
    /// A cancellation ends the estimate between windows, at a window's read of the device, and between records' checks:
    /// a check under way finishes first, as its session cannot be given back while FASTER reads for it, and so does a
    /// window FASTER's scan reads (in memory, or a caller's FasterKV), as its iterator must be disposed by its thread.
    /// </remarks>
    public async Task<long> EstimateAsync(CancellationToken cancellationToken = default)
    {
        long begin = _store.Log.BeginAddress;
        long readOnly = Math.Max(begin, _store.Log.SafeReadOnlyAddress);
        long tail = Math.Max(readOnly, _store.Log.TailAddress);
        (long sampled, List<SampledRecord> records) = await ScanAsync(begin, readOnly, cancellationToken).ConfigureAwait(false);
        long live = await CheckAsync(records, cancellationToken).ConfigureAwait(false);
        return (long)((readOnly - begin) * new LiveBytesSample(sampled, live).LiveFraction) + (tail - readOnly);
    }

    /// <summary>Samples [<paramref name="fromAddress"/>, <paramref name="untilAddress"/>): how much of it is live.</summary>
    /// <param name="fromAddress">The log's begin address, or a page boundary above it: an address sure to start a record.</param>
    /// <param name="untilAddress">At most the safe-read-only address: records above it may still be being written.</param>
    /// <param name="cancellationToken">Ends the sample as it ends an estimate (<see cref="EstimateAsync"/>).</param>
    /// <exception cref="StoreFaultedException">The store's disk failed while records were read.</exception>
    public async Task<LiveBytesSample> SampleAsync(long fromAddress, long untilAddress, CancellationToken cancellationToken = default)
    {
        (long sampled, List<SampledRecord> records) = await ScanAsync(fromAddress, untilAddress, cancellationToken).ConfigureAwait(false);
        return new LiveBytesSample(sampled, await CheckAsync(records, cancellationToken).ConfigureAwait(false));
    }

    /// <summary>Reads the windows of the stretch; returns the bytes they covered and the records in them that are not deletes.</summary>
    private async Task<(long Sampled, List<SampledRecord> Records)> ScanAsync(long fromAddress, long untilAddress, CancellationToken cancellationToken)
    {
        _fault.ThrowIfFaulted();
        if (untilAddress <= fromAddress)
        {
            return (0, []);
        }

        // Made at the first window on the disk: a log wholly in memory needs no buffer.
        DiskWindowReader? disk = null;
        var windows = new List<SampledWindow>();
        foreach (long start in WindowStarts(fromAddress, untilAddress, _device is null ? WindowsFor(_pageSizeBits) : MaxWindows))
        {
            cancellationToken.ThrowIfCancellationRequested();

            // Records never cross a page, and the head address is a page's start: a window lies wholly on the disk or in memory.
            long end = Math.Min(untilAddress, (start | _pageMask) + 1);
            windows.Add(_device is not null && end <= _store.Log.HeadAddress
                ? await (disk ??= new DiskWindowReader(_device, _fault, _pageSizeBits)).ReadAsync(start, end, RecordsPerWindow, cancellationToken).ConfigureAwait(false)

                // A scan blocks its thread while it loads a page from the disk (a caller's FasterKV, or a page that left
                // memory since the check above): on the pool, one window after the other (more at once, on a small
                // machine, starve the pool, and every operation of the store waits for it to grow), and given up once the
                // disk has failed.
                : await _fault.WaitUnlessFaultedAsync(Task.Run(() => Scan(start, end), cancellationToken)).ConfigureAwait(false));
        }

        return (windows.Sum(window => window.Bytes), windows.SelectMany(window => window.Records).ToList());
    }

    /// <summary>The page boundaries (or <paramref name="fromAddress"/>) where the windows start: the pages holding the middles of equal parts of the stretch.</summary>
    private IEnumerable<long> WindowStarts(long fromAddress, long untilAddress, int windows)
    {
        long previous = -1;
        for (int i = 0; i < windows; i++)
        {
            long middle = fromAddress + ((untilAddress - fromAddress) / (2 * windows) * ((2 * i) + 1));
            long start = Math.Max(fromAddress, middle & ~_pageMask);

            // Neighbouring parts of a short stretch share a page: it is read once.
            if (start > previous)
            {
                previous = start;
                yield return start;
            }
        }
    }

    /// <summary>Reads up to <see cref="RecordsPerWindow"/> records from <paramref name="start"/>, a record's start, without passing <paramref name="end"/>, through FASTER's scan.</summary>
    private SampledWindow Scan(long start, long end)
    {
        using IFasterScanIterator<SpanByte, SpanByte> scan = _store.Log.Scan(start, end, ScanBufferingMode.SinglePageBuffering);
        var records = new List<SampledRecord>(RecordsPerWindow);
        bool more = true;
        while (records.Count < RecordsPerWindow && (more = scan.GetNext(out RecordInfo info)))
        {
            // A delete is never live: compaction drops it, and its key's latest record is no record at all.
            if (!info.Tombstone)
            {
                records.Add(new SampledRecord(scan.GetKey().AsReadOnlySpan().ToArray(), new RecordLocation(scan.CurrentAddress, info.PreviousAddress), scan.NextAddress - scan.CurrentAddress));
            }
        }

        // Up to the end of the last record read, or of the window once the scan ran out: deletes, invalid records and padding included.
        long covered = more ? scan.NextAddress : Math.Max(scan.NextAddress, end);
        return new SampledWindow(covered - start, records);
    }

    /// <summary>Checks the records, <see cref="Checkers"/> at once; returns the bytes of those still their key's latest.</summary>
    private async Task<long> CheckAsync(List<SampledRecord> records, CancellationToken cancellationToken)
    {
        var next = new StrongBox<int>(-1);
        var checkers = new Task<long>[Math.Min(Checkers, records.Count)];
        for (int i = 0; i < checkers.Length; i++)
        {
            // Each on the pool: a check that memory or the page cache answers completes on its caller's thread
            // (RecordLocation.OfLatestAsync), so checkers started here would take every record in turn, one after another.
            checkers[i] = Task.Run(() => CheckSomeAsync(records, next, cancellationToken), cancellationToken);
        }

        return (await Task.WhenAll(checkers).ConfigureAwait(false)).Sum();
    }

    /// <summary>Checks the next unchecked record until none is left; returns the bytes of those still their key's latest.</summary>
    /// <remarks>
    /// A session whose read the failed disk never answered is left undisposed, as the copier leaves its sessions
    /// (<see cref="LiveRecordCopier"/>): FASTER's dispose waits for the session's reads in flight, so it would block this
    /// thread for good, and the compaction pass waiting for the estimate, which may hold every writer back, with it.
    /// </remarks>
    private async Task<long> CheckSomeAsync(List<SampledRecord> records, StrongBox<int> next, CancellationToken cancellationToken)
    {
        StoreSession session = _newSession();
        bool abandoned = false;
        long live = 0;
        try
        {
            for (int i = Interlocked.Increment(ref next.Value); i < records.Count; i = Interlocked.Increment(ref next.Value))
            {
                cancellationToken.ThrowIfCancellationRequested();
                SampledRecord record = records[i];
                if (await RecordLocation.OfLatestAsync(session, record.Key, _fault).ConfigureAwait(false) == record.Location)
                {
                    live += record.Size;
                }
            }
        }
        catch (StoreFaultedException)
        {
            abandoned = true;
            throw;
        }
        finally
        {
            if (!abandoned)
            {
                session.Dispose();
            }
        }

        return live;
    }
}
