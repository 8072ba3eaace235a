using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Channels;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Durability;

/// <summary>
/// The write-ahead log of a <see cref="DurabilityMode.Commit"/> store: every acknowledged write is appended here, and the
/// write completes once a group commit has made its entry durable. Recovery restores the latest checkpoint, then replays
/// the log from the position that checkpoint recorded (<see cref="WalPosition"/>).
/// </summary>
/// <remarks>
/// The log is a FASTER <see cref="FasterLog"/> on its own files (<see cref="LogFileLayout.WriteAheadLogDirectory"/>),
/// with a checksum per entry, in FASTER's fast-commit mode: a commit appends a commit record and flushes the log's tail
/// with one write-through write, shared by every writer waiting at that moment (a checkpoint per commit would cost a
/// version change, a new checkpoint folder and a file deletion). Where recovery starts looking for
/// commit records is kept in a <see cref="WalCommitFile"/>. One commit runs at a time (<see cref="CommitAsync"/>): writers that arrive while
/// it runs wait for the next, which takes all of them (two at a time measured slower, docs/durability.md).
/// <para>
/// The log holds transactions (<see cref="WalTransaction"/>) split into entries no larger than
/// <see cref="MaxFragmentPayload"/> (<see cref="WalFragment"/>), so the log's pages stay small whatever the store's page
/// size and batch size. A writer appends while it holds its keys' stripes and its write-barrier admission: per key, the
/// log's order is the store's order, and a checkpoint, which drains the barrier first, falls between transactions.
/// </para>
/// <para>
/// Every entry carries a sequence number, consecutive in log order, and every commit records the last one it covers
/// (<see cref="WalCommitCookie"/>): replay checks that it reads them all. FASTER's scan reads a damaged entry header of
/// zero as the padding at a page's end and skips the rest of the page without an error; without the numbers, the store
/// would open without acknowledged writes. Numbers and addresses are given out together under one lock, and commits
/// start under it, so the numbers follow the addresses and a commit's cookie is exact. The lock is held for a copy into
/// the log's memory; a writer that finds that memory full of pages still being flushed waits outside it. Only a commit
/// started while the memory is full waits under it, inside FASTER, until the oldest page is flushed; the writers it
/// holds up block their threads meanwhile, though they could not have appended either.
/// </para>
/// </remarks>
internal sealed class WriteAheadLog : IAsyncDisposable
{
    /// <summary>The largest piece of a transaction one entry carries; larger transactions are split.</summary>
    public const int MaxFragmentPayload = 64 * 1024;

    // 1 MB pages hold many entries each (entries never cross a page); 8 pages of memory let writers append while
    // earlier pages flush. Segments, deleted once a checkpoint no longer needs them, are the store's segment size kept
    // between one page and 64 MB (SegmentSizeBits).
    private const int PageSizeBits = 20;
    private const int MemorySizeBits = 23;
    private const int MaxSegmentSizeBits = 26;
    /// <summary>Segment files are named <c>log.&lt;n&gt;</c>.</summary>
    public const string SegmentBaseName = "log";

    private readonly FasterLog _log;
    private readonly IDevice _device;
    private readonly WalCommitFile _commits;
    private readonly string _directory;
    private readonly int _segmentSizeBits;
    private readonly ILogger _logger;
    private readonly Func<IDevice, IDevice>? _wrapDevice;
    private readonly CancellationTokenSource _stopping = new();
    private readonly Channel<bool> _commitRequested = Channel.CreateBounded<bool>(new BoundedChannelOptions(1) { FullMode = BoundedChannelFullMode.DropWrite });
    private Task _groupCommits = Task.CompletedTask;
    private readonly StoreFault _fault;
    private readonly WalCommitCookie _recovered;
    private readonly object _appendLock = new();
    private readonly SemaphoreSlim _commitTurn = new(1, 1);
    private long _nextSequence;
    private long _beginSequence;
    private (long Tail, long BeginAddress, long CommitNum) _lastCommit;
    private long _commitCount;
    private int _disposed;

    private WriteAheadLog(string directory, int segmentSizeBits, FasterLog log, IDevice device, WalCommitFile commits, WalCommitCookie recovered, StoreFault fault, ILogger logger, Func<IDevice, IDevice>? wrapDevice)
    {
        _recovered = recovered;
        _nextSequence = recovered.NextSequence;
        _beginSequence = recovered.BeginSequence;
        _lastCommit = (log.CommittedUntilAddress, log.BeginAddress, 0);
        _fault = fault;
        _wrapDevice = wrapDevice;
        _directory = directory;
        _segmentSizeBits = segmentSizeBits;
        _log = log;
        _device = device;
        _commits = commits;
        _logger = logger;
    }

    /// <summary>Gets the address of the oldest entry kept.</summary>
    public long BeginAddress => _log.BeginAddress;

    /// <summary>Gets the address after the last durable entry.</summary>
    public long CommittedUntilAddress => _log.CommittedUntilAddress;

    /// <summary>Gets the address the next entry will get.</summary>
    public long TailAddress => _log.TailAddress;

    /// <summary>Gets the log's tail and the sequence number the next entry will get: what a checkpoint taken now holds.</summary>
    public WalPosition Tail
    {
        get
        {
            lock (_appendLock)
            {
                return new WalPosition(_log.TailAddress, _nextSequence);
            }
        }
    }

    /// <summary>Gets the log's begin address and the sequence number of the first entry there.</summary>
    public WalPosition Begin
    {
        get
        {
            lock (_appendLock)
            {
                return new WalPosition(_log.BeginAddress, _beginSequence);
            }
        }
    }

    /// <summary>
    /// Gets whether the log holds four segments or more: a checkpoint then lets it drop them, so the log's files stay
    /// bounded (4 to 256 MB) whatever the checkpoint interval.
    /// </summary>
    public bool IsDueForCheckpoint => TailAddress - BeginAddress >= 4L << _segmentSizeBits;

    /// <summary>
    /// Gets whether the store has faulted: a commit of this log failed (FASTER's log then holds entries it could not make
    /// durable and commits no more), or a write of the store's segment files did. From then on the store refuses writes
    /// (<see cref="ThrowIfFaulted"/>) until it is reopened.
    /// </summary>
    public bool IsFaulted => _fault.IsFaulted;

    /// <summary>Gets the commits completed since the log opened: group commits, and those before checkpoints.</summary>
    public long CommitCount => Interlocked.Read(ref _commitCount);

    /// <summary>Gets the directory holding the log's files.</summary>
    public string Directory => _directory;

    /// <summary>Gets the size of a log segment file, in bits, for a store whose segments are <paramref name="storeSegmentSizeBits"/>.</summary>
    public static int SegmentSizeBitsFor(int storeSegmentSizeBits) => Math.Clamp(storeSegmentSizeBits, PageSizeBits, MaxSegmentSizeBits);

    /// <summary>Opens the log in <paramref name="directory"/>, creating it if needed, recovered to its latest commit.</summary>
    /// <param name="directory">The log's directory.</param>
    /// <param name="segmentSizeBits">The size of its segment files (<see cref="SegmentSizeBitsFor"/>); the same on every open.</param>
    /// <param name="logger">Receives the log's events.</param>
    /// <exception cref="StoreFileCorruptedException">The commit file is missing or damaged, or the log cannot be recovered.</exception>
    /// <param name="fault">The store's fault: a failed commit is recorded there, and fences off the store's writes.</param>
    /// <param name="wrapDevice">Wraps the log's device (fault-injection tests); null for the device as it is.</param>
    public static WriteAheadLog Open(string directory, int segmentSizeBits, StoreFault fault, ILogger logger, Func<IDevice, IDevice>? wrapDevice = null) =>
        Open(directory, segmentSizeBits, fault, logger, wrapDevice, dropTornTail: true);

    private static WriteAheadLog Open(string directory, int segmentSizeBits, StoreFault fault, ILogger logger, Func<IDevice, IDevice>? wrapDevice, bool dropTornTail)
    {
        System.IO.Directory.CreateDirectory(directory);
        string commitsPath = Path.Combine(directory, "commits");
        bool hasSegments = System.IO.Directory.EnumerateFiles(directory, SegmentBaseName + ".*").Any();
        if (hasSegments && !File.Exists(commitsPath))
        {
            throw new StoreFileCorruptedException(commitsPath, "it is missing, but the write-ahead log has segment files");
        }

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
                LogCommitManager = commits,
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
                return new WriteAheadLog(directory, segmentSizeBits, log, device, commits, recovered, fault, logger, wrapDevice);
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

        return Open(directory, segmentSizeBits, fault, logger, wrapDevice, dropTornTail: false);
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
    /// Checks that every committed entry from <paramref name="from"/> on reads back and decodes, without applying
    /// anything: a damaged log is then reported before any file of the store is changed.
    /// </summary>
    /// <exception cref="StoreFileCorruptedException">An entry fails its checksum or does not decode, or entries are missing.</exception>
    public Task VerifyAsync(WalPosition from) => ReplayAsync(from, static _ => ValueTask.CompletedTask);

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
        WriteAheadLog reopened = Open(_directory, _segmentSizeBits, _fault, _logger, _wrapDevice);
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

    /// <summary>Starts the group-commit loop that <see cref="WaitForCommitAsync"/> relies on.</summary>
    public void StartGroupCommit() => _groupCommits = RunGroupCommitsAsync(_stopping.Token);

    /// <summary>The fence: throws once the store has faulted, so that no write after a failure is acknowledged.</summary>
    /// <exception cref="StoreFaultedException">A commit of the log, or a write of the store's segment files, has failed.</exception>
    public void ThrowIfFaulted() => _fault.ThrowIfFaulted();

    /// <summary>Appends one upsert or delete; returns its address, to wait for with <see cref="WaitForCommitAsync"/>.</summary>
    /// <exception cref="StoreFaultedException">A commit of the log has failed.</exception>
    public ValueTask<long> AppendAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value, bool isDelete)
    {
        ThrowIfFaulted();
        int payloadSize = WalTransaction.SizeOf(key.Length, isDelete ? 0 : value.Length);
        if (payloadSize > MaxFragmentPayload)
        {
            return AppendAsync([new BatchWrite(key, value, isDelete)]);
        }

        byte[] entry = ArrayPool<byte>.Shared.Rent(WalFragment.HeaderSize + payloadSize);
        int length = WalFragment.HeaderSize + WalTransaction.Write(entry.AsSpan(WalFragment.HeaderSize), key.Span, value.Span, isDelete);
        uint crc = WalFragment.WriteHeader(entry, length, WalFragmentKind.Whole, 0);
        return EnqueueAndReturnAsync(entry, length, crc);
    }

    /// <summary>Appends the writes of one atomic batch as one transaction; returns the address of its last entry.</summary>
    /// <exception cref="StoreFaultedException">A commit of the log has failed.</exception>
    public async ValueTask<long> AppendAsync(IReadOnlyList<BatchWrite> writes)
    {
        ThrowIfFaulted();
        byte[] transaction = WalTransaction.Encode(writes, out int length);
        try
        {
            if (length <= MaxFragmentPayload)
            {
                return await EnqueueFragmentAsync(WalFragmentKind.Whole, 0, transaction.AsMemory(0, length)).ConfigureAwait(false);
            }

            long first = await EnqueueFragmentAsync(WalFragmentKind.First, 0, transaction.AsMemory(0, MaxFragmentPayload)).ConfigureAwait(false);
            long last = first;
            for (int offset = MaxFragmentPayload; offset < length; offset += MaxFragmentPayload)
            {
                int size = Math.Min(MaxFragmentPayload, length - offset);
                WalFragmentKind kind = offset + size == length ? WalFragmentKind.Last : WalFragmentKind.Middle;
                last = await EnqueueFragmentAsync(kind, first, transaction.AsMemory(offset, size)).ConfigureAwait(false);
            }

            return last;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(transaction);
        }
    }

    /// <summary>Completes once the entry at <paramref name="address"/> is durable; asks for a group commit if none is under way.</summary>
    /// <exception cref="StoreFaultedException">A commit of the log has failed; the entry may not be durable.</exception>
    public ValueTask WaitForCommitAsync(long address, CancellationToken cancellationToken = default)
    {
        ThrowIfFaulted();
        _commitRequested.Writer.TryWrite(true);

        // Entries are committed whole, so the commit point passing the entry's first byte means the entry is durable.
        // commitNum 0: wait for the address only, not for commits other writers requested later.
        ValueTask wait = _log.WaitForCommitAsync(address + 1, commitNum: 0, cancellationToken);
        return wait.IsCompletedSuccessfully ? wait : WaitOrFaultAsync(wait);
    }

    /// <summary>Commits everything appended so far and completes when it is durable.</summary>
    /// <exception cref="StoreFaultedException">The commit failed, or an earlier one did.</exception>
    /// <remarks>
    /// One commit at a time, from start to durable (the group commits, a checkpoint's, the one at close): a commit record
    /// on disk then proves that the commit before it completed, which is how recovery tells damage from a torn flush
    /// (<see cref="WalTearCheck"/>). FASTER alone would flush a commit's new page while the previous commit's flush is
    /// still in flight.
    /// </remarks>
    public async ValueTask CommitAsync()
    {
        ThrowIfFaulted();
        await _commitTurn.WaitAsync().ConfigureAwait(false);
        try
        {
            (long tail, long commitNum, bool started) = StartCommit();
            await _log.WaitForCommitAsync(tail, commitNum).ConfigureAwait(false);
            if (started)
            {
                Interlocked.Increment(ref _commitCount);
            }
        }
        catch (CommitFailureException e)
        {
            throw Fault(e);
        }
        finally
        {
            _commitTurn.Release();
        }
    }

    /// <summary>
    /// Starts a commit of everything appended so far, with the last sequence number in its cookie, and returns what to wait
    /// for. When nothing was appended and the begin address has not moved since the last commit started, returns that
    /// commit instead: with a cookie, FASTER would write and flush a commit record even for nothing.
    /// </summary>
    private (long Tail, long CommitNum, bool Started) StartCommit()
    {
        lock (_appendLock)
        {
            if (_log.TailAddress == _lastCommit.Tail && _log.BeginAddress == _lastCommit.BeginAddress)
            {
                return (_lastCommit.Tail, _lastCommit.CommitNum, false);
            }

            // Under the lock, so no entry is appended between reading the last sequence number and the commit record.
            long beginAddress = _log.BeginAddress;
            byte[] cookie = new WalCommitCookie(_beginSequence, _nextSequence - 1).ToBytes();
            if (!_log.CommitStrongly(out long tail, out long commitNum, spinWait: false, cookie))
            {
                throw new InvalidOperationException($"The write-ahead log refused a commit at tail {_log.TailAddress}.");
            }

            _lastCommit = (tail, beginAddress, commitNum);
            return (tail, commitNum, true);
        }
    }

    private async ValueTask WaitOrFaultAsync(ValueTask wait)
    {
        try
        {
            await wait.ConfigureAwait(false);
        }
        catch (CommitFailureException e)
        {
            throw Fault(e);
        }
        catch (OperationCanceledException) when (_fault.IsFaulted)
        {
            throw _fault.ToException();
        }
    }

    /// <summary>Records the first failure (later writes are fenced off by it) and returns the exception for the caller.</summary>
    private StoreFaultedException Fault(Exception failure)
    {
        _fault.Report("write-ahead log", failure);
        return _fault.ToException();
    }

    /// <summary>Lets the log drop entries below <paramref name="position"/>; their files go with a later commit.</summary>
    public void TruncateUntil(WalPosition position)
    {
        lock (_appendLock)
        {
            // Under the lock: a commit records the begin address and its sequence number together.
            if (position.Address > _log.BeginAddress)
            {
                _log.TruncateUntil(position.Address);
                _beginSequence = position.NextSequence;
            }
        }
    }

    /// <summary>
    /// Reads the committed transactions from <paramref name="from"/> on, in log order, and hands each to <paramref name="apply"/>.
    /// A transaction whose last piece is missing (the writer was not acknowledged) is left out. Call before anything is
    /// appended: the entries must run from <paramref name="from"/>'s sequence number to the last one the recovered commit covers.
    /// </summary>
    /// <exception cref="StoreFileCorruptedException">
    /// An entry before the committed end fails its checksum or is not a valid entry, or entries are missing.
    /// </exception>
    public async Task<WalReplayResult> ReplayAsync(WalPosition from, Func<IReadOnlyList<BatchWrite>, ValueTask> apply)
    {
        var assembler = new WalTransactionAssembler();
        long transactions = 0;
        long writes = 0;
        long nextSequence = from.NextSequence;
        long end = from.Address;
        if (WalCommitRecordCheck.FirstUnsafe(segment => SegmentPath(_directory, segment), _segmentSizeBits, PageSizeBits, from.Address, _log.CommittedUntilAddress) is long damaged)
        {
            throw new StoreFileCorruptedException(SegmentPathOf(damaged), $"the write-ahead log's commit record at address {damaged} is damaged (its lengths run past its end)");
        }

        using FasterLogScanIterator entries = _log.Scan(from.Address, _log.CommittedUntilAddress, recover: false);
        while (true)
        {
            IMemoryOwner<byte>? entry = null;
            try
            {
                if (!entries.GetNext(MemoryPool<byte>.Shared, out entry, out int length, out long address, out long next))
                {
                    break;
                }

                (WalFragmentKind kind, long firstAddress, long sequence) = WalFragment.ReadHeader(entry.Memory.Span[..length]);
                if (sequence != nextSequence)
                {
                    throw Missing(nextSequence, sequence - 1, end, address);
                }

                nextSequence++;
                end = next;

                // The transaction may point into the entry's buffer: it is applied before the buffer goes back.
                if (assembler.TryAdd(address, kind, firstAddress, entry.Memory[WalFragment.HeaderSize..length], out ReadOnlyMemory<byte> transaction))
                {
                    List<BatchWrite> decoded = WalTransaction.Read(transaction);
                    await apply(decoded).ConfigureAwait(false);
                    transactions++;
                    writes += decoded.Count;
                }
            }
            catch (Exception e) when (IsDamagedRead(e) || e is FormatException)
            {
                throw new StoreFileCorruptedException(SegmentPathOf(entries.NextAddress), $"the write-ahead log entry near address {entries.NextAddress} is damaged ({e.Message})", e);
            }
            finally
            {
                entry?.Dispose();
            }
        }

        // FASTER's scan ends quietly where it cannot read on (a segment file missing or cut short): committed entries
        // after that point would be lost without a trace.
        if (entries.NextAddress < _log.CommittedUntilAddress)
        {
            throw new StoreFileCorruptedException(
                SegmentPathOf(entries.NextAddress),
                $"the write-ahead log's entries end at address {entries.NextAddress}, before its committed end {_log.CommittedUntilAddress}: this segment file is missing or cut short");
        }

        // Entries skipped on the last page the scan read take it past the committed end: only the commit's count shows them.
        if (_recovered.LastSequence >= nextSequence)
        {
            throw Missing(nextSequence, _recovered.LastSequence, end, _log.CommittedUntilAddress);
        }

        return new WalReplayResult(transactions, writes, assembler.IncompleteCount);
    }

    /// <summary>
    /// The error for committed entries FASTER's scan skipped: an entry header damaged to read as zero, which the scan takes
    /// for the padding at a page's end, so that it goes on at the next page.
    /// </summary>
    private StoreFileCorruptedException Missing(long firstMissing, long lastMissing, long after, long before) =>
        new(
            SegmentPathOf(after),
            firstMissing <= lastMissing
                ? $"the write-ahead log entries numbered {firstMissing} to {lastMissing} are missing between addresses {after} and {before}: an entry header there is damaged"
                : $"the write-ahead log entry at address {before} is numbered {lastMissing + 1}, but {firstMissing} was next: the log's order is damaged");

    /// <summary>
    /// What FASTER's log throws when it reads damaged bytes: besides its own exceptions, a damaged length reaches .NET
    /// APIs as a negative count or an index out of range (the corruption fuzzer found an
    /// <see cref="ArgumentOutOfRangeException"/> escaping from a flipped bit in an entry header).
    /// </summary>
    private static bool IsDamagedRead(Exception e) =>
        e is FasterException or IOException or AggregateException or ArgumentException or IndexOutOfRangeException or OverflowException or InvalidOperationException;

    /// <summary>Gets the path of segment file <paramref name="segment"/> of the log in <paramref name="directory"/>.</summary>
    public static string SegmentPath(string directory, long segment) =>
        Path.Combine(directory, $"{SegmentBaseName}.{segment.ToString(System.Globalization.CultureInfo.InvariantCulture)}");

    /// <summary>Gets the path of the segment file holding <paramref name="address"/>.</summary>
    private string SegmentPathOf(long address) => SegmentPath(_directory, address >> _segmentSizeBits);

    /// <summary>Stops the group-commit loop and closes the files. Call after every writer has finished waiting.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _stopping.CancelAsync().ConfigureAwait(false);
        try
        {
            await _groupCommits.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
        }

        _log.Dispose();
        _device.Dispose();
        _commits.Dispose();
        _stopping.Dispose();
    }

    private async ValueTask<long> EnqueueFragmentAsync(WalFragmentKind kind, long first, ReadOnlyMemory<byte> payload)
    {
        byte[] entry = ArrayPool<byte>.Shared.Rent(WalFragment.HeaderSize + payload.Length);
        payload.Span.CopyTo(entry.AsSpan(WalFragment.HeaderSize));
        uint crc = WalFragment.WriteHeader(entry, WalFragment.HeaderSize + payload.Length, kind, first);
        return await EnqueueAndReturnAsync(entry, WalFragment.HeaderSize + payload.Length, crc).ConfigureAwait(false);
    }

    /// <summary>
    /// Numbers and appends <paramref name="entry"/>'s first <paramref name="length"/> bytes (<paramref name="crc"/>: what
    /// <see cref="WalFragment.WriteHeader"/> returned), then returns the rented buffer.
    /// </summary>
    private ValueTask<long> EnqueueAndReturnAsync(byte[] entry, int length, uint crc)
    {
        bool appended;
        long address;
        try
        {
            appended = TryEnqueue(entry, length, crc, out address, out _);
        }
        catch
        {
            ArrayPool<byte>.Shared.Return(entry);
            throw;
        }

        if (!appended)
        {
            return EnqueueWhenFlushedAsync(entry, length, crc);
        }

        ArrayPool<byte>.Shared.Return(entry);
        return ValueTask.FromResult(address);
    }

    /// <summary>
    /// Appends once the log's memory, full of pages still being flushed, has room: each try that fails waits for a commit
    /// of everything before it, which flushes those pages. Returns the rented buffer.
    /// </summary>
    private async ValueTask<long> EnqueueWhenFlushedAsync(byte[] entry, int length, uint crc)
    {
        try
        {
            while (true)
            {
                ThrowIfFaulted();
                if (TryEnqueue(entry, length, crc, out long address, out long tail))
                {
                    return address;
                }

                // Abandoned when the store faults: a failed write of the store's segments stops the group commits.
                _commitRequested.Writer.TryWrite(true);
                ValueTask flushed = _log.WaitForCommitAsync(tail, commitNum: 0, _fault.Token);
                if (flushed.IsCompletedSuccessfully)
                {
                    // The pages were flushed between the try and the wait; let them be closed before the next try.
                    await Task.Yield();
                }
                else
                {
                    await WaitOrFaultAsync(flushed).ConfigureAwait(false);
                }
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(entry);
        }
    }

    /// <summary>
    /// Gives the entry the next sequence number and copies it into the log's memory, both under the append lock, so the
    /// numbers follow the addresses. False, with the log's tail, when that memory is full of pages still being flushed.
    /// </summary>
    private bool TryEnqueue(byte[] entry, int length, uint crc, out long address, out long tail)
    {
        lock (_appendLock)
        {
            WalFragment.Seal(entry, _nextSequence, crc);
            if (_log.TryEnqueue(entry.AsSpan(0, length), out address))
            {
                _nextSequence++;
                tail = 0;
                return true;
            }

            tail = _log.TailAddress;
            return false;
        }
    }

    private async Task RunGroupCommitsAsync(CancellationToken stopping)
    {
        while (await _commitRequested.Reader.WaitToReadAsync(stopping).ConfigureAwait(false))
        {
            _commitRequested.Reader.TryRead(out _);
            try
            {
                // Commits up to the tail as it is now: every writer that asked before this point is covered; any that
                // asks from here on has left a request in the channel, which starts the next round.
                await CommitAsync().ConfigureAwait(false);
            }
            catch (Exception e)
            {
                // The waiting writers get StoreFaultedException from their wait; every later write is fenced off.
                Fault(e is StoreFaultedException faulted ? faulted.InnerException! : e);
                StoreEvents.WriteAheadLogCommitFailed(_logger, e);
            }
        }
    }
}
