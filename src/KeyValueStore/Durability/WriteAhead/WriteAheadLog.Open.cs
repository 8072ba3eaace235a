using System;
using System.Buffers;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Durability;

/// <summary>Opening the log: FASTER's recovery, the torn tail a crash left (dropped, or refused as damage), the segment files checked.</summary>
internal sealed partial class WriteAheadLog
{
    /// <summary>Opens the log in <paramref name="directory"/>, creating it if needed, recovered to its latest commit.</summary>
    /// <param name="directory">The log's directory.</param>
    /// <param name="segmentSizeBits">The size of its segment files (<see cref="SegmentSizeBitsFor"/>); the same on every open.</param>
    /// <param name="logger">Receives the log's events.</param>
    /// <exception cref="StoreFileCorruptedException">The commit file is missing or damaged, or the log cannot be recovered.</exception>
    /// <param name="fault">The store's fault: a failed commit is recorded there, and fences off the store's writes.</param>
    /// <param name="wrapDevice">Wraps the log's device (fault-injection tests); null for the device as it is.</param>
    /// <param name="wrapCommits">Wraps the commit file as FASTER sees it (fault-injection tests); null for the file as it is.</param>
    public static WriteAheadLog Open(string directory, int segmentSizeBits, StoreFault fault, ILogger logger, Func<IDevice, IDevice>? wrapDevice = null, Func<ILogCommitManager, ILogCommitManager>? wrapCommits = null) =>
        Open(directory, segmentSizeBits, fault, logger, wrapDevice, wrapCommits, dropTornTail: true);

    private static WriteAheadLog Open(string directory, int segmentSizeBits, StoreFault fault, ILogger logger, Func<IDevice, IDevice>? wrapDevice, Func<ILogCommitManager, ILogCommitManager>? wrapCommits, bool dropTornTail)
    {
        System.IO.Directory.CreateDirectory(directory);
        string commitsPath = Path.Combine(directory, "commits");
        bool hasSegments = System.IO.Directory.EnumerateFiles(directory, SegmentBaseName + ".*").Any();
        if (hasSegments && !File.Exists(commitsPath))
        {
            throw new StoreFileCorruptedException(commitsPath, "it is missing, but the write-ahead log has segment files");
        }

        // Before FASTER opens the files: opening one for writing sets it to the full segment size again.
        EnsureWholeSectors(directory);

        var commits = WalCommitFile.Open(commitsPath);
        IDevice? device = null;
        FasterLog? log = null;
        try
        {
            device = Devices.CreateLogDevice(Path.Combine(directory, SegmentBaseName), preallocateFile: true, recoverDevice: true);
            device = new FaultReportingDevice(wrapDevice?.Invoke(device) ?? device, fault, "write-ahead log");
            log = new FasterLog(new FasterLogSettings
            {
                LogDevice = device,
                PageSizeBits = PageSizeBits,
                MemorySizeBits = MemorySizeBits,
                SegmentSizeBits = segmentSizeBits,
                LogCommitManager = new FaultReportingCommitFile(wrapCommits?.Invoke(commits) ?? commits, fault),
                LogChecksum = LogChecksumType.PerEntry,
                FastCommitMode = true,
                TryRecoverLatest = false,
            });
            commits.EnsureStart(log.BeginAddress, hasSegments);
            try
            {
                log.Recover();
            }
            catch (Exception e) when (IsDamagedRead(e))
            {
                throw new StoreFileCorruptedException(commits.Path, $"the write-ahead log could not be recovered to its latest commit ({e.Message})", e);
            }

            WalCommitCookie recovered = ReadCookie(commits, log.RecoveredCookie);
            (long recordedUntil, byte[]? recordedCookie) = commits.RecordedCommit() ?? (0, null);
            long? tornAt = null;
            if (dropTornTail && !fault.IsFaulted)
            {
                // The newest metadata says how many entries lie before its address: the torn-tail scan starts counting there.
                long? sequence = recordedUntil >= log.BeginAddress ? ReadCookie(commits, recordedCookie).NextSequence : null;
                long from = Math.Max(recordedUntil, log.BeginAddress);

                // A damaged commit record after the newest metadata is a torn flush's too; the scan must stop before FASTER parses it.
                long? unsafeAt = WalCommitRecordCheck.FirstUnsafe(segment => SegmentPath(directory, segment), segmentSizeBits, PageSizeBits, from, log.CommittedUntilAddress);
                WalDamage? damage = FirstTornEntry(log, from, unsafeAt ?? log.CommittedUntilAddress, sequence)
                    ?? (unsafeAt is long record ? WalDamage.Entry(record) : null);
                tornAt = damage?.EndLogAt;

                // Where FASTER's recovery stopped, the rest is dropped as a crash's (WithoutStaleTailAsync): it must look like one too.
                damage ??= WalTearCheck.FirstDamagedFrom(segment => SegmentPath(directory, segment), segmentSizeBits, PageSizeBits, log.CommittedUntilAddress);
                if (damage is { } found
                    && WalTearCheck.WhyNotTorn(segment => SegmentPath(directory, segment), segmentSizeBits, PageSizeBits, found) is string why)
                {
                    throw new StoreFileCorruptedException(
                        SegmentPath(directory, found.DamagedAt >> segmentSizeBits),
                        $"the write-ahead log is damaged at address {found.DamagedAt}, after its newest commit metadata, and this is not what a crash leaves: {why}");
                }
            }

            if (tornAt is not long torn)
            {
                EnsureSegmentsHold(directory, segmentSizeBits, log.BeginAddress, Math.Max(log.CommittedUntilAddress, recordedUntil));
                return new WriteAheadLog(directory, segmentSizeBits, log, device, commits, recovered, fault, logger, wrapDevice, wrapCommits);
            }

            long foundEnd = log.CommittedUntilAddress;
            log.Dispose();
            log = null;
            device.Dispose();
            device = null;
            commits.Dispose();
            WalTailScrubber.Scrub(directory, segmentSizeBits, torn);
            StoreEvents.WriteAheadLogTornTailDropped(logger, directory, torn, foundEnd);
        }
        catch
        {
            log?.Dispose();
            device?.Dispose();
            commits.Dispose();
            throw;
        }

        return Open(directory, segmentSizeBits, fault, logger, wrapDevice, wrapCommits, dropTornTail: false);
    }

    /// <summary>Reads a commit's cookie (<see cref="WalCommitCookie"/>), reporting a damaged one as the commit file's.</summary>
    private static WalCommitCookie ReadCookie(WalCommitFile commits, byte[]? cookie)
    {
        try
        {
            return WalCommitCookie.Read(cookie);
        }
        catch (FormatException e)
        {
            throw new StoreFileCorruptedException(commits.Path, $"the write-ahead log's latest commit cannot be used: {e.Message}", e);
        }
    }

    /// <summary>
    /// Finds the first entry between <paramref name="from"/> (where the newest commit metadata says the log was
    /// committed) and the committed end FASTER's recovery found that fails its checksum, or where FASTER's scan skipped
    /// entries: the torn tail of a crash.
    /// </summary>
    /// <remarks>
    /// A crash while a flush is in flight can leave part of it on disk: some sectors new, some not, in any order. FASTER's
    /// recovery looks only for commit records past the metadata and checks entries with its own per-entry checksum, an
    /// XOR of 8-byte words that a missing sector of repeated bytes passes; so it can accept a commit record written by a
    /// torn flush whose earlier entries are incomplete. Nothing of that flush was acknowledged (its write never
    /// completed), so the log ends before the first such entry. An entry damaged before the metadata's address is not a
    /// torn tail (metadata is written only after the entries it covers are on disk) and replay reports it.
    /// <para>
    /// A sector the torn flush left as zeros can also fall on an entry's header, which FASTER's scan (recovery's too) reads
    /// as a page's padding: it goes on at the next page, and finds the commit records there. The sequence numbers show
    /// the gap (<paramref name="nextSequence"/>, the number of the first entry at <paramref name="from"/>, when known);
    /// the log then ends where the scan went on, at the start of that page, which keeps every commit record before the
    /// zeros. An entry that fails its CRC ends the log at its own address, for the same reason: the scan steps over
    /// commit records without returning them, and one just before the damage may have acknowledged writes.
    /// </para>
    /// <para>Whether what it finds can be a tear at all, <see cref="WalTearCheck"/> decides.</para>
    /// </remarks>
    private static WalDamage? FirstTornEntry(FasterLog log, long from, long until, long? nextSequence)
    {
        if (until <= from)
        {
            return null;
        }

        using FasterLogScanIterator entries = log.Scan(from, until, recover: false);
        long previous = from - 1;
        long afterPrevious = from;
        while (true)
        {
            long at = entries.NextAddress;
            IMemoryOwner<byte>? entry = null;
            try
            {
                if (!entries.GetNext(MemoryPool<byte>.Shared, out entry, out int length, out long address, out long next))
                {
                    return null;
                }

                long sequence;
                try
                {
                    sequence = WalFragment.ReadHeader(entry.Memory.Span[..length]).Sequence;
                }
                catch (FormatException)
                {
                    return WalDamage.Entry(address);
                }

                if (nextSequence is long expected && sequence != expected)
                {
                    long page = PageStart(address);
                    return new WalDamage(page > previous ? page : address, afterPrevious, EntryFailedChecksum: false);
                }

                nextSequence = sequence + 1;
                previous = address;
                afterPrevious = next;
            }
            catch (Exception e) when (e is FasterException or ArgumentException or IndexOutOfRangeException or OverflowException)
            {
                return WalDamage.Entry(at);
            }
            finally
            {
                entry?.Dispose();
            }
        }
    }

    private static long PageStart(long address) => address & ~((1L << PageSizeBits) - 1);

    /// <summary>
    /// Refuses a segment file whose length is not whole 512-byte sectors. FASTER sets a segment file to the full segment
    /// size when it creates it, and writes whole sectors; a crash can lose that size change and leave the file as long
    /// as its last durable write, still whole sectors. Any other length was cut by something else, and a cut after the
    /// newest commit metadata would otherwise take the commits there with it unseen: the log would simply end earlier.
    /// </summary>
    private static void EnsureWholeSectors(string directory)
    {
        const int SectorSize = 512;
        foreach (string path in System.IO.Directory.EnumerateFiles(directory, SegmentBaseName + ".*"))
        {
            long length = new FileInfo(path).Length;
            if (length % SectorSize != 0)
            {
                throw new StoreFileCorruptedException(
                    path, $"it is {length} bytes long, not a whole number of {SectorSize}-byte sectors: no write of the log leaves that, so the file was cut short, perhaps through committed entries");
            }
        }
    }

    /// <summary>
    /// Every segment file from the log's begin address to its committed end must be there, and long enough. FASTER's
    /// recovery and scans read a missing or cut segment as zeros, which look like the padding at a page's end: every
    /// committed entry in it would be skipped without a trace.
    /// </summary>
    private static void EnsureSegmentsHold(string directory, int segmentSizeBits, long beginAddress, long committedUntil)
    {
        if (committedUntil <= beginAddress)
        {
            return;
        }

        long segmentSize = 1L << segmentSizeBits;
        for (long segment = beginAddress >> segmentSizeBits; segment <= (committedUntil - 1) >> segmentSizeBits; segment++)
        {
            string path = SegmentPath(directory, segment);
            long needed = Math.Min(segmentSize, committedUntil - (segment << segmentSizeBits));
            var file = new FileInfo(path);
            if (!file.Exists || file.Length < needed)
            {
                throw new StoreFileCorruptedException(
                    path,
                    file.Exists
                        ? $"it is {file.Length} bytes long, but the write-ahead log was committed up to address {committedUntil}, {needed} bytes into it"
                        : $"it is missing, but the write-ahead log was committed up to address {committedUntil}, which it holds");
            }
        }
    }

    /// <summary>
    /// Returns the log ready for appending: when a crash left bytes after the committed end (<see cref="WalTailScrubber"/>
    /// says why they must go), closes this log, clears them and reopens it. Call before anything is appended.
    /// </summary>
    public async Task<WriteAheadLog> WithoutStaleTailAsync()
    {
        long committedUntil = CommittedUntilAddress;
        if (!WalTailScrubber.HasBytesAfter(_directory, _segmentSizeBits, committedUntil))
        {
            return this;
        }

        await DisposeAsync().ConfigureAwait(false);
        WalTailScrubber.Scrub(_directory, _segmentSizeBits, committedUntil);
        StoreEvents.WriteAheadLogTailCleared(_logger, _directory, committedUntil);
        WriteAheadLog reopened = Open(_directory, _segmentSizeBits, _fault, _logger, _wrapDevice, _wrapCommits);
        if (reopened.CommittedUntilAddress != committedUntil)
        {
            long found = reopened.CommittedUntilAddress;
            await reopened.DisposeAsync().ConfigureAwait(false);
            throw new StoreFileCorruptedException(_directory, $"the write-ahead log was committed up to address {committedUntil}, but after clearing what lay beyond, up to {found}");
        }

        return reopened;
    }

    /// <summary>Deletes the log's files, once nothing in them is needed any more.</summary>
    public static void DeleteFiles(string directory)
    {
        if (System.IO.Directory.Exists(directory))
        {
            System.IO.Directory.Delete(directory, recursive: true);
        }
    }
}
