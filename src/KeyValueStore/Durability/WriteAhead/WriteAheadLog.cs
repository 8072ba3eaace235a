using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
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
internal sealed partial class WriteAheadLog : IAsyncDisposable
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
    private readonly Func<ILogCommitManager, ILogCommitManager>? _wrapCommits;
    private readonly CancellationTokenSource _stopping = new();
    private readonly Channel<bool> _commitRequested = Channel.CreateBounded<bool>(new BoundedChannelOptions(1) { FullMode = BoundedChannelFullMode.DropWrite });
    private Task _groupCommits = Task.CompletedTask;
    private readonly StoreFault _fault;
    private readonly WalCommitCookie _recovered;
    private readonly object _appendLock = new();

    /// <summary>The transactions split in pieces whose first piece is appended and last is not yet, by the first piece's address.</summary>
    private readonly SortedList<long, WalPosition> _openTransactions = [];
    private readonly SemaphoreSlim _commitTurn = new(1, 1);
    private readonly CommitSignal _commitSignal = new();
    private readonly CancellationTokenRegistration _pulseOnFault;
    private long _nextSequence;
    private long _beginSequence;
    private (long Tail, long BeginAddress, long CommitNum) _lastCommit;
    private long _commitCount;
    private long _committedSequence;
    private int _disposed;

    private WriteAheadLog(string directory, int segmentSizeBits, FasterLog log, IDevice device, WalCommitFile commits, WalCommitCookie recovered, StoreFault fault, ILogger logger, Func<IDevice, IDevice>? wrapDevice, Func<ILogCommitManager, ILogCommitManager>? wrapCommits)
    {
        _recovered = recovered;
        _nextSequence = recovered.NextSequence;
        _committedSequence = _nextSequence - 1;
        _beginSequence = recovered.BeginSequence;
        _lastCommit = (log.CommittedUntilAddress, log.BeginAddress, 0);
        _fault = fault;
        _wrapDevice = wrapDevice;
        _wrapCommits = wrapCommits;
        _directory = directory;
        _segmentSizeBits = segmentSizeBits;
        _log = log;
        _device = device;
        _commits = commits;
        _logger = logger;
        _pulseOnFault = fault.Token.Register(static signal => ((CommitSignal)signal!).Pulse(), _commitSignal);
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

    /// <summary>
    /// Gets where replay would start for a checkpoint taken now: the log's tail, or the first piece of the earliest
    /// transaction still being appended in pieces. A transaction's pieces are appended one by one, others' entries
    /// between them, so the tail can fall inside one; replay must never start there (it would find pieces without
    /// their first and refuse the log). Replaying the whole transaction over a checkpoint that holds it changes nothing.
    /// </summary>
    public WalPosition ReplayStart
    {
        get
        {
            lock (_appendLock)
            {
                return _openTransactions.Count > 0 ? _openTransactions.Values[0] : new WalPosition(_log.TailAddress, _nextSequence);
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

    /// <summary>Gets or sets where the commits are recorded (<see cref="StoreMetrics.RecordCommit"/>); null records none.</summary>
    public StoreMetrics? Metrics { get; set; }

    /// <summary>Starts the group-commit loop that <see cref="WaitForCommitAsync"/> relies on.</summary>
    public void StartGroupCommit() => _groupCommits = RunGroupCommitsAsync(_stopping.Token);

    /// <summary>The fence: throws once the store has faulted, so that no write after a failure is acknowledged.</summary>
    /// <exception cref="StoreFaultedException">A commit of the log, or a write of the store's segment files, has failed.</exception>
    public void ThrowIfFaulted() => _fault.ThrowIfFaulted();

    /// <summary>
    /// Completes once the entry at <paramref name="address"/> is durable; asks for a group commit if none is under way.
    /// Throws exactly when the entry is not durable and never will be.
    /// </summary>
    /// <exception cref="StoreFaultedException">The store faulted (a commit of the log failed, or its segment files did) before the entry was committed.</exception>
    public ValueTask WaitForCommitAsync(long address)
    {
        ThrowIfFaulted();
        _commitRequested.Writer.TryWrite(true);

        // Entries are committed whole, so the commit point passing the entry's first byte means the entry is durable.
        return _log.CommittedUntilAddress > address ? default : WaitForEntryAsync(address);
    }

    /// <summary>Commits everything appended so far and completes when it is durable.</summary>
    /// <exception cref="StoreFaultedException">The commit failed, or an earlier one did.</exception>
    /// <remarks>
    /// One commit at a time, from start to durable (the group commits, a checkpoint's, the one at close): a commit record
    /// on disk then proves that the commit before it completed, which is how recovery tells damage from a torn flush
    /// (<see cref="WalTearCheck"/>). FASTER alone would flush a commit's new page while the previous commit's flush is
    /// still in flight.
    /// </remarks>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask CommitAsync()
    {
        ThrowIfFaulted();
        await _commitTurn.WaitAsync().ConfigureAwait(false);
        try
        {
            // Again with the turn: a waiter that saw the fault reads the commit point with the turn too (WaitForEntryAsync),
            // and no commit may start after it has.
            ThrowIfFaulted();
            long startedAt = Stopwatch.GetTimestamp();
            (long tail, long commitNum, long entries) = StartCommit();
            await _log.WaitForCommitAsync(tail, commitNum).ConfigureAwait(false);
            if (entries >= 0)
            {
                Interlocked.Increment(ref _commitCount);
                Metrics?.RecordCommit(Stopwatch.GetElapsedTime(startedAt), entries);
            }
        }
        catch (CommitFailureException e)
        {
            throw Fault(e);
        }
        finally
        {
            _commitTurn.Release();

            // After the commit point moved, or after the failure was reported (then the waiters see the fault).
            _commitSignal.Pulse();
        }
    }

    /// <summary>
    /// Starts a commit of everything appended so far, with the last sequence number in its cookie, and returns what to wait
    /// for, and how many entries it covers that no commit before it did. When nothing was appended and the begin address
    /// has not moved since the last commit started, returns that commit instead, with -1 entries: with a cookie, FASTER
    /// would write and flush a commit record even for nothing.
    /// </summary>
    private (long Tail, long CommitNum, long Entries) StartCommit()
    {
        lock (_appendLock)
        {
            if (_log.TailAddress == _lastCommit.Tail && _log.BeginAddress == _lastCommit.BeginAddress)
            {
                return (_lastCommit.Tail, _lastCommit.CommitNum, -1);
            }

            // Under the lock, so no entry is appended between reading the last sequence number and the commit record.
            long beginAddress = _log.BeginAddress;
            byte[] cookie = new WalCommitCookie(_beginSequence, _nextSequence - 1).ToBytes();
            if (!_log.CommitStrongly(out long tail, out long commitNum, spinWait: false, cookie))
            {
                throw new InvalidOperationException($"The write-ahead log refused a commit at tail {_log.TailAddress}.");
            }

            _lastCommit = (tail, beginAddress, commitNum);
            long entries = _nextSequence - 1 - _committedSequence;
            _committedSequence = _nextSequence - 1;
            return (tail, commitNum, entries);
        }
    }

    /// <summary>
    /// Waits for the entry at <paramref name="address"/> to be committed, waking at each commit (<see cref="CommitSignal"/>).
    /// When the store faults meanwhile, from its segment files say, the group commits stop (each checks the fault once it
    /// has the turn), and the one asked for may never come: the wait ends then, and once any commit under way has
    /// finished it tells whether that commit took the entry. Without the fault's pulse a write that appended just before
    /// a segment failure waited forever; answering "failed" for an entry the commit under way took would have reported a
    /// write that a reopen then shows.
    /// </summary>
    /// <exception cref="StoreFaultedException">The store faulted before the entry was committed.</exception>
    /// <exception cref="ObjectDisposedException">The log closed before the entry was committed.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask WaitForEntryAsync(long address)
    {
        while (true)
        {
            Task pulse = _commitSignal.Next;
            if (_log.CommittedUntilAddress > address)
            {
                return;
            }

            if (_fault.IsFaulted)
            {
                break;
            }

            ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
            await pulse.ConfigureAwait(false);
        }

        await _commitTurn.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_log.CommittedUntilAddress > address)
            {
                return;
            }
        }
        finally
        {
            _commitTurn.Release();
        }

        throw _fault.ToException();
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
        _pulseOnFault.Dispose();

        // Whoever still waits for a commit learns that none will come.
        _commitSignal.Pulse();
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
