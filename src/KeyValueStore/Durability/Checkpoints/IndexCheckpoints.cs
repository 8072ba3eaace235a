using System;
using System.IO;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Durability;

/// <summary>
/// Decides when a checkpoint first takes an index checkpoint, takes it, and remembers the latest one
/// (<see cref="IndexCheckpointRecord"/>), so that reopening a large store does not rebuild its index from the whole log.
/// </summary>
/// <remarks>
/// Without an index checkpoint FASTER rebuilds the index at recovery by reading every record from the log's begin
/// address; with one it loads the index and reads only the log written since the index checkpoint started. Writing one
/// costs the whole hash table (64 bytes a bucket, 64 MB at the default size), so it is taken only once an open would
/// otherwise replay at least <see cref="StoreSettings.MinReplayBytesForIndexCheckpoint"/> (four times the table by
/// default) and at least a quarter of the log: an open then reads the log once to check it
/// (<see cref="RecordChainCheck"/>), the table, and at most a quarter of the log again.
/// <para>
/// FASTER's index checkpoint is fuzzy: it records the log's tail as its start and writes the hash table from memory while
/// writers run, and recovery replays the log from that start. That covers every record at or above the start, but not
/// one below it that is linked into the table only after the table's copy: an upsert allocates and fills its record
/// first and links it after, and a write caught in between was left out of both: after a crash its key read as before
/// the write (in Commit mode an acknowledged write, which the checkpoint had let the write-ahead log drop). So writers
/// are drained and held while FASTER records the start and issues the copy (<see cref="WriteBarrier"/>: in Commit mode
/// the journal's applies), and only then; every record below the start is linked by then, and every later one is
/// replayed. It is taken just before a log checkpoint, which is then the first
/// that can be recovered with it: FASTER pairs an index checkpoint only with a log checkpoint whose tail is at or above
/// its own.
/// </para>
/// </remarks>
internal sealed class IndexCheckpoints
{
    private readonly FasterKV<SpanByte, SpanByte> _store;
    private readonly CheckpointCommits _commits;
    private readonly LogFileLayout _layout;
    private readonly DirectoryDurability _directories;
    private readonly long _minReplayBytes;
    private readonly StoreFault _fault;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;

    /// <param name="store">The store whose index is checkpointed.</param>
    /// <param name="commits">Writes the index checkpoint's metadata, off FASTER's epoch.</param>
    /// <param name="layout">The store's files.</param>
    /// <param name="directories">Flushes the index checkpoint's folder before a checkpoint record names it.</param>
    /// <param name="minReplayBytes">The least log an open would replay that makes an index checkpoint worth its writing.</param>
    /// <param name="recovered">The index checkpoint the store was recovered with, or null.</param>
    /// <param name="fault">The store's fault: a failed write abandons the index checkpoint.</param>
    /// <param name="timeProvider">Times each index checkpoint.</param>
    /// <param name="logger">Receives index checkpoint events.</param>
    public IndexCheckpoints(
        FasterKV<SpanByte, SpanByte> store,
        CheckpointCommits commits,
        LogFileLayout layout,
        DirectoryDurability directories,
        long minReplayBytes,
        IndexCheckpointRecord? recovered,
        StoreFault fault,
        TimeProvider timeProvider,
        ILogger logger)
    {
        _store = store;
        _commits = commits;
        _layout = layout;
        _directories = directories;
        _minReplayBytes = minReplayBytes;
        Latest = recovered;
        _fault = fault;
        _timeProvider = timeProvider;
        _logger = logger;
    }

    /// <summary>Gets the latest index checkpoint whose files are complete and recorded, or null when there is none.</summary>
    public IndexCheckpointRecord? Latest { get; private set; }

    /// <summary>Gets how much of the log an open would replay now: from the latest index checkpoint's start, or the log's begin.</summary>
    private long ReplayBytes
    {
        get
        {
            long tail = _store.Log.TailAddress;
            return tail - Math.Max(_store.Log.BeginAddress, Latest?.StartLogicalAddress ?? 0);
        }
    }

    /// <summary>
    /// Takes an index checkpoint when an open would replay enough of the log to make it pay. The caller holds the
    /// checkpointer's turn: FASTER runs one checkpoint of either kind at a time, and compaction's copies wait for it.
    /// </summary>
    /// <param name="writes">The barrier every write that links a record passes: held while the checkpoint starts (see the remarks).</param>
    /// <exception cref="StoreFaultedException">The disk failed while the index checkpoint was written.</exception>
    public async Task TakeIfDueAsync(WriteBarrier writes)
    {
        long logBytes = _store.Log.TailAddress - _store.Log.BeginAddress;
        long replayBytes = ReplayBytes;
        if (replayBytes < Math.Max(_minReplayBytes, logBytes / 4))
        {
            return;
        }

        long started = _timeProvider.GetTimestamp();
        Guid token;
        await writes.CloseAsync().ConfigureAwait(false);
        try
        {
            // FASTER records the start and issues the table's copy inside this call.
            while (!_store.TryInitiateIndexCheckpoint(out token))
            {
                // Only the checkpointer starts checkpoints, and it holds its turn: FASTER is busy with an index resize.
                _fault.ThrowIfFaulted();
                await Task.Yield();
            }
        }
        finally
        {
            writes.Open();
        }

        await _fault.WaitUnlessFaultedAsync(_store.CompleteCheckpointAsync().AsTask()).ConfigureAwait(false);
        await _fault.WaitUnlessFaultedAsync(_commits.WhenCompleteAsync()).ConfigureAwait(false);

        // FASTER completes a checkpoint whose files failed to write: only the fault tells.
        _fault.ThrowIfFaulted();
        try
        {
            string folder = IndexCheckpointRecord.FolderOf(_layout, token);
            _directories.FlushUpTo(folder, _layout.Directory);
            Latest = IndexCheckpointRecord.Of(_layout, token);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or InvalidDataException)
        {
            // The index checkpoint only speeds an open up: without a record of it, the previous one (or the log) serves.
            StoreEvents.IndexCheckpointFailed(_logger, token, e);
            return;
        }

        long tableBytes = 0;
        foreach (FileChecksum file in Latest.Files)
        {
            tableBytes += file.Bytes;
        }

        StoreEvents.IndexCheckpointTaken(_logger, token, tableBytes, replayBytes, Latest.StartLogicalAddress, _timeProvider.GetElapsedTime(started));
    }

    /// <summary>
    /// The index checkpoint to record with the log checkpoint <paramref name="completed"/>: the latest, unless the
    /// whole log is now smaller than what makes one worth taking (compaction shrank it). It is then forgotten, and its
    /// files, as large as the hash table, go with <see cref="DeleteUnrecorded"/>. (One that compaction merely passed is
    /// replaced first by <see cref="TakeIfDueAsync"/>: the whole log would be replayed then.)
    /// </summary>
    public IndexCheckpointRecord? ToRecordWith(RecoveryPoint completed)
    {
        if (completed.FinalLogicalAddress - completed.BeginAddress < _minReplayBytes)
        {
            Latest = null;
        }

        return Latest;
    }

    /// <summary>
    /// Deletes every index checkpoint but the latest (FASTER keeps two, and one compaction has left behind holds as
    /// much disk as a useful one). Call only once the checkpoint record no longer names them; nothing is deleted after
    /// a fault, when the record may not have been written.
    /// </summary>
    public void DeleteUnrecorded()
    {
        string root = IndexCheckpointRecord.RootOf(_layout);
        if (_fault.IsFaulted || !Directory.Exists(root))
        {
            return;
        }

        foreach (string folder in Directory.EnumerateDirectories(root))
        {
            if (Latest is { } latest && string.Equals(Path.GetFileName(folder), latest.Token.ToString(), StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            try
            {
                Directory.Delete(folder, recursive: true);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // Disk only: the next checkpoint tries again, and FASTER deletes its own older ones too.
            }
        }
    }
}
