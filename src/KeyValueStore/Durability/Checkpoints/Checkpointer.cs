using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Diagnostics;
using KeyValueStore.Concurrency;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Durability;

/// <summary>
/// Takes a durable store's checkpoints, one at a time: periodically, on demand, after each compaction and when the store
/// closes. In <see cref="DurabilityMode.Commit"/> mode each checkpoint records how much of the
/// <see cref="WriteAheadLog"/> it holds, and lets the log drop that part.
/// </summary>
/// <remarks>
/// Every checkpoint is a FASTER fold-over checkpoint of the hybrid log only: it flushes the log up to its tail and
/// writes small metadata, and FASTER then deletes the segment files below the log's begin address. No index
/// checkpoint is taken (the default index alone is 64 MB); recovery rebuilds the index by scanning the log from its
/// begin address, which compaction keeps bounded.
/// <para>
/// No write is applied while a checkpoint starts (<see cref="WriteBarrier"/>): writers wait, reads go on. In Checkpoint
/// mode the barrier is the store's own, which every write passes from admission to its end, so the checkpoint holds every
/// write admitted before it and none after, and each batch whole or not at all. In Commit mode it is the journal's
/// <see cref="WriteAheadJournal.Applies"/>, which writes pass only around their apply, after their commit: the checkpoint
/// first takes the position it records (<see cref="WalPosition"/>): the write-ahead log's tail, or the first piece of a
/// transaction still being appended in pieces (<see cref="WriteAheadLog.ReplayStart"/>); then it waits for the
/// writes that began before it (<see cref="WriteGenerations"/>), so every entry before that position is in the store,
/// without holding back the writes that append, commit and apply meanwhile. Replay from the position writes those again
/// over the checkpoint, in the log's order, to the same end (<see cref="WriteAheadJournal"/>).
/// </para>
/// <para>
/// The barrier is what keeps the checkpoint's files as they were written. A fold-over checkpoint's tail is the log's
/// tail when FASTER moves to the next version, so a record written before then would land below that tail in the next
/// version, and recovering the checkpoint then marks it invalid in place and writes its page back: a write to sectors
/// whose checksums the checkpoint already recorded (<see cref="SectorChecksums"/>), which a power cut during recovery
/// tears. Once FASTER has fixed the tail (<see cref="CheckpointTailWatch"/>), everything below it is read-only and a
/// write lands above it, where recovery does not look: writers go on then, while the checkpoint's pages flush and sync,
/// rather than waiting for the disk.
/// Compaction's slices run between whole checkpoints (<see cref="RunBetweenCheckpointsAsync{T}"/>), which also keeps a
/// checkpoint from recording a slice's new begin address without all of its copies.
/// </para>
/// </remarks>
internal sealed class Checkpointer : IAsyncDisposable
{
    private readonly DirectoryDurability _directories;
    private readonly int _segmentSizeBits;
    private readonly FasterKV<SpanByte, SpanByte> _store;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly SemaphoreSlim _oneAtATime = new(1, 1);
    private readonly LogFileLayout _layout;
    private readonly CheckpointDeviceFactory _checkpointFiles;
    private readonly CheckpointCommits _commits;
    private readonly WriteBarrier _writes;
    private readonly CancellationTokenSource _stopping = new();
    private readonly WriteAheadLog? _writeAheadLog;
    private readonly WriteGenerations? _loggedWrites;
    private readonly StoreMetrics _metrics;
    private readonly StoreFault _fault;
    private readonly CheckpointTailWatch _tailWatch = new();
    private readonly IndexCheckpoints _indexCheckpoints;
    private Task _periodic = Task.CompletedTask;
    private long _writesSinceCheckpoint;
    private int _logSizeCheckpointPending;
    private Task _logSizeCheckpoint = Task.CompletedTask;
    private long _checkpointCount;
    private int _disposed;

    /// <summary>Creates the checkpointer of a durable store; <see cref="Start"/> starts its periodic checkpoints.</summary>
    /// <param name="store">The store to checkpoint.</param>
    /// <param name="layout">The store's files: where the checkpoint record is written.</param>
    /// <param name="checkpointFiles">FASTER's checkpoint files: replaced checkpoints are deleted once the record names their replacement.</param>
    /// <param name="commits">Writes each checkpoint's metadata, off FASTER's epoch: a checkpoint is complete once its commit is.</param>
    /// <param name="indexCheckpoints">Takes an index checkpoint before a checkpoint when reopening would otherwise replay too much of the log.</param>
    /// <param name="writes">The barrier closed while a checkpoint starts: the store's write barrier, or in Commit mode the journal's <see cref="WriteAheadJournal.Applies"/>.</param>
    /// <param name="writeAheadLog">The log of a Commit-mode store; null in Checkpoint mode.</param>
    /// <param name="loggedWrites">The Commit-mode writes from their append to their apply; null in Checkpoint mode.</param>
    /// <param name="fault">The store's fault: once it is set no checkpoint is started, and one under way is abandoned.</param>
    /// <param name="metrics">Records each checkpoint's duration.</param>
    /// <param name="directories">Flushes the checkpoint's folders before its record names it, and the record's directory after.</param>
    /// <param name="segmentSizeBits">The size of the store's segment files, to find the sector holding a checkpoint's tail.</param>
    /// <param name="timeProvider">The clock of the periodic checkpoints.</param>
    /// <param name="logger">Receives checkpoint events.</param>
    public Checkpointer(
        FasterKV<SpanByte, SpanByte> store,
        LogFileLayout layout,
        CheckpointDeviceFactory checkpointFiles,
        CheckpointCommits commits,
        IndexCheckpoints indexCheckpoints,
        WriteBarrier writes,
        WriteAheadLog? writeAheadLog,
        WriteGenerations? loggedWrites,
        StoreFault fault,
        StoreMetrics metrics,
        DirectoryDurability directories,
        int segmentSizeBits,
        TimeProvider timeProvider,
        ILogger logger)
    {
        _directories = directories;
        _segmentSizeBits = segmentSizeBits;
        _checkpointFiles = checkpointFiles;
        _commits = commits;
        _indexCheckpoints = indexCheckpoints;
        _fault = fault;
        _store = store;
        _layout = layout;
        _writes = writes;
        _writeAheadLog = writeAheadLog;
        _loggedWrites = loggedWrites;
        _metrics = metrics;
        _timeProvider = timeProvider;
        _logger = logger;
        store.UnsafeRegisterCallback(_tailWatch);
    }

    /// <summary>Gets the number of checkpoints completed since the store opened.</summary>
    public long CheckpointCount => Interlocked.Read(ref _checkpointCount);

    /// <summary>Gets the checkpoints under way and started, for an observer to tell which operations overlapped one.</summary>
    public BackgroundWork Checkpoints { get; } = new();

    /// <summary>Starts the periodic checkpoints.</summary>
    public void Start(TimeSpan interval) => _periodic = RunPeriodicAsync(interval, _stopping.Token);

    /// <summary>Notes a completed write, so the periodic checkpoint knows there is something to save.</summary>
    public void NoteWrite() => Interlocked.Increment(ref _writesSinceCheckpoint);

    /// <summary>
    /// Starts a checkpoint in the background, unless one started this way is still pending: the write-ahead log has
    /// grown past its bound (<see cref="WriteAheadLog.IsDueForCheckpoint"/>) before the next periodic one.
    /// </summary>
    public void RequestCheckpointForLogSize()
    {
        if (Interlocked.Exchange(ref _logSizeCheckpointPending, 1) == 0)
        {
            _logSizeCheckpoint = CheckpointForLogSizeAsync();
        }
    }

    /// <summary>Takes a checkpoint now and completes when it is durable.</summary>
    public async Task CheckpointAsync(string reason, CancellationToken cancellationToken = default)
    {
        await _oneAtATime.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            await TakeCheckpointOrFaultAsync(reason, _writeAheadLog).ConfigureAwait(false);
        }
        finally
        {
            _oneAtATime.Release();
        }
    }

    /// <summary>
    /// Takes a checkpoint that holds everything, after the write-ahead log's entries were replayed into a store that no
    /// longer runs in Commit mode, so that the caller can delete the log.
    /// </summary>
    /// <remarks>
    /// The checkpoint records no log position (FASTER restored the last one into <see cref="FasterKV{Key, Value}.CommitCookie"/>
    /// on recovery, so it is cleared first). A checkpoint that recorded one would require a log that is about to be
    /// deleted, and a crash before the next checkpoint would leave a store that opens in neither mode. Without a
    /// position, a crash before the log is deleted replays the whole log over this checkpoint, which already holds its
    /// every write: replaying overwrites and deletes in their order again changes nothing.
    /// </remarks>
    public async Task RetireWriteAheadLogAsync()
    {
        await _oneAtATime.WaitAsync().ConfigureAwait(false);
        try
        {
            _store.CommitCookie = null;
            await TakeCheckpointOrFaultAsync("write-ahead log retired", writeAheadLog: null).ConfigureAwait(false);
        }
        finally
        {
            _oneAtATime.Release();
        }
    }

    /// <summary>Runs <paramref name="work"/> (a slice of a compaction) with no checkpoint in progress (<see cref="IWriteJournal.RunBetweenCheckpointsAsync{T}"/>).</summary>
    public async Task<T> RunBetweenCheckpointsAsync<T>(Func<Task<T>> work)
    {
        await _oneAtATime.WaitAsync().ConfigureAwait(false);
        try
        {
            return await work().ConfigureAwait(false);
        }
        finally
        {
            _oneAtATime.Release();
        }
    }

    /// <summary>
    /// Stops the loops, then takes a last checkpoint so that everything written is saved. Call only after every
    /// operation of the store has finished. Idempotent.
    /// </summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _stopping.CancelAsync().ConfigureAwait(false);
        await IgnoreCancellation(_periodic).ConfigureAwait(false);
        await IgnoreCancellation(_logSizeCheckpoint).ConfigureAwait(false);
        if (_fault.IsFaulted)
        {
            // The disk failed: a checkpoint could not complete, and might save writes whose callers were told they
            // failed. Recovery takes the previous checkpoint and, in Commit mode, the log's committed entries.
            StoreEvents.CloseCheckpointSkipped(_logger);
        }
        else
        {
            await CheckpointAsync("close").ConfigureAwait(false);
        }

        _stopping.Dispose();
    }

    private static async Task IgnoreCancellation(Task task)
    {
        try
        {
            await task.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
        }
    }

    private async Task CheckpointForLogSizeAsync()
    {
        const string Reason = "write-ahead log size";
        try
        {
            await CheckpointAsync(Reason, _stopping.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (_stopping.IsCancellationRequested)
        {
        }
        catch (Exception e)
        {
            // The previous checkpoint still stands; the next write past the bound asks again.
            StoreEvents.CheckpointFailed(_logger, Reason, e);
        }
        finally
        {
            Interlocked.Exchange(ref _logSizeCheckpointPending, 0);
        }
    }

    private async Task RunPeriodicAsync(TimeSpan interval, CancellationToken stopping)
    {
        using var timer = new PeriodicTimer(interval, _timeProvider);
        while (await timer.WaitForNextTickAsync(stopping).ConfigureAwait(false))
        {
            // After a disk failure no checkpoint can complete: the writes since the last one are lost to it anyway.
            if (Interlocked.Read(ref _writesSinceCheckpoint) == 0 || _fault.IsFaulted)
            {
                continue;
            }

            try
            {
                await CheckpointAsync("periodic", stopping).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stopping.IsCancellationRequested)
            {
                return;
            }
            catch (Exception e)
            {
                // The previous checkpoint still stands; the next tick tries again.
                StoreEvents.CheckpointFailed(_logger, "periodic", e);
            }
        }
    }

    /// <summary>Takes one checkpoint. The caller holds <see cref="_oneAtATime"/>.</summary>
    /// <param name="reason">Named in the log.</param>
    /// <param name="writeAheadLog">The log whose position the checkpoint records, or null.</param>
    /// <exception cref="StoreFaultedException">The store's disk failed before or while the checkpoint ran.</exception>
    /// <summary>
    /// Takes a checkpoint; whatever the engine throws out of it, rather than report through its devices, faults the
    /// store. FASTER's checkpoint state machine stays in the phase it stopped in, so no later checkpoint could start
    /// (each would wait for this one forever) and nothing written from now on could be made durable. As on a failed
    /// disk, the store then refuses every operation, and a reopen recovers the last recorded checkpoint (in Commit
    /// mode with the write-ahead log's acknowledged writes).
    /// </summary>
    /// <exception cref="StoreFaultedException">The checkpoint failed, now or before.</exception>
    private async Task TakeCheckpointOrFaultAsync(string reason, WriteAheadLog? writeAheadLog)
    {
        try
        {
            await TakeCheckpointAsync(reason, writeAheadLog).ConfigureAwait(false);
        }
        catch (Exception e) when (KeyValueStoreException.IsForeign(e))
        {
            _fault.Report("checkpoint, inside the storage engine,", e);
            throw _fault.ToException();
        }
    }

    private async Task TakeCheckpointAsync(string reason, WriteAheadLog? writeAheadLog)
    {
        _fault.ThrowIfFaulted();
        using BackgroundWork.Running running = Checkpoints.Begin();
        long started = _timeProvider.GetTimestamp();

        // Before the log checkpoint, which is then the first its index checkpoint can be recovered with. Writers are held
        // only while it starts (IndexCheckpoints says why).
        await _indexCheckpoints.TakeIfDueAsync(_writes).ConfigureAwait(false);
        Interlocked.Exchange(ref _writesSinceCheckpoint, 0);
        WalPosition? walPosition = null;
        if (writeAheadLog is not null)
        {
            // Writers go on: only the writes that began before the tail was taken are waited for (see the remarks).
            walPosition = writeAheadLog.ReplayStart;
            await _loggedWrites!.WaitForEarlierAsync().ConfigureAwait(false);
            _fault.ThrowIfFaulted();
            await writeAheadLog.CommitAsync().ConfigureAwait(false);
            _store.CommitCookie = walPosition.Value.ToCookie();
        }

        CheckpointWriterHold writersHeld = await CheckpointWriterHold.BeginAsync(_writes, _timeProvider).ConfigureAwait(false);
        Guid token;
        try
        {
            _fault.ThrowIfFaulted();

            // Writers wait only until the checkpoint's tail is fixed; they write above it while its pages flush. They are
            // let go from inside FASTER's step that fixes it (CheckpointWriterHold says why).
            _tailWatch.Arm(writersHeld.Release);
            while (!_store.TryInitiateHybridLogCheckpoint(out token, CheckpointType.FoldOver))
            {
                // Only this class starts checkpoints, so FASTER is busy with something else of its own (an index
                // resize); it finishes shortly. Or a checkpoint abandoned on a disk failure is stuck: then stop.
                _fault.ThrowIfFaulted();
                await Task.Yield();
            }

            await _fault.WaitUnlessFaultedAsync(_store.CompleteCheckpointAsync().AsTask()).ConfigureAwait(false);

            // FASTER returns before the checkpoint's metadata is written: that is the commit's, off its epoch.
            await _fault.WaitUnlessFaultedAsync(_commits.WhenCompleteAsync()).ConfigureAwait(false);

            // FASTER completes a checkpoint whose files failed to write: only the fault tells.
            _fault.ThrowIfFaulted();
        }
        finally
        {
            _tailWatch.Disarm();
            writersHeld.Release();
        }

        // Recorded before anything it replaces may go: recovery holds the store to this record (CheckpointRecord).
        string metadataPath = CheckpointInspector.MetadataPath(_layout, token);
        try
        {
            // The checkpoint's new folders, and the segments it holds, must outlast a power cut before the record names them.
            _directories.FlushUpTo(Path.GetDirectoryName(metadataPath)!, _layout.Directory);
            RecoveryPoint completed = CheckpointInspector.Read(metadataPath);
            byte[]? tailSector = SectorChecksums.TailSectorBytes(_layout, _segmentSizeBits, completed.FinalLogicalAddress);
            CheckpointRecord.Of(token, completed.Version, metadataPath, tailSector, _indexCheckpoints.ToRecordWith(completed)).WriteAtomically(_layout.CheckpointRecordPath, _directories);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // The previous checkpoint and its record still stand; a full disk will fail the next checkpoint too.
            _fault.Report("checkpoint record", e);
            throw _fault.ToException();
        }

        _checkpointFiles.DeleteReplacedCheckpoints();
        _indexCheckpoints.DeleteUnrecorded();

        // The checkpoint is durable, recorded, and holds everything below the position: the log may drop it.
        if (walPosition is { } position)
        {
            writeAheadLog!.TruncateUntil(position);
        }

        Interlocked.Increment(ref _checkpointCount);
        TimeSpan took = _timeProvider.GetElapsedTime(started);
        _metrics.RecordCheckpoint(took);
        StoreEvents.CheckpointTaken(_logger, reason, token, _store.CurrentVersion - 1, took, writersHeld.HeldFor);
    }
}
