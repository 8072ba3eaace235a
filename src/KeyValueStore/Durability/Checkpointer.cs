using System;
using System.Threading;
using System.Threading.Channels;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Diagnostics;
using KeyValueStore.Sessions;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Durability;

/// <summary>
/// Takes a durable store's checkpoints, one at a time: periodically, on demand, after each compaction, when the store
/// closes, and in <see cref="DurabilityMode.Commit"/> mode as group commits for writers waiting to be durable.
/// </summary>
/// <remarks>
/// Every checkpoint is a FASTER fold-over checkpoint of the hybrid log only: it flushes the log up to its tail and
/// writes small metadata, and FASTER then deletes the segment files below the log's begin address. No index
/// checkpoint is taken (the default index alone is 64 MB); recovery rebuilds the index by scanning the log from its
/// begin address, which compaction keeps bounded.
/// <para>
/// Why a write is in a checkpoint once the write has completed before that checkpoint started: FASTER's checkpoints
/// are CPR commits; the version shift they start happens after every write that had already completed, so those writes
/// are in the version the checkpoint persists. Group commit relies on exactly that: a writer completes its write,
/// then joins the next round; the round is closed (swapped for a fresh one) before its checkpoint starts.
/// </para>
/// <para>
/// No write runs while a checkpoint does (<see cref="WriteBarrier"/>): writers wait, and in Commit mode they join the
/// next round meanwhile. Reads go on.
/// </para>
/// <para>
/// Compaction runs under the same lock (<see cref="RunThenCheckpointAsync"/>): a checkpoint taken while a compaction
/// is copying records could persist the compaction's new begin address without all of its copies, and then delete
/// the originals. Holding the lock makes commit rounds wait for a compaction; the benchmark in docs/durability.md says
/// what that costs.
/// </para>
/// </remarks>
internal sealed class Checkpointer : IAsyncDisposable
{
    private readonly FasterKV<SpanByte, SpanByte> _store;
    private readonly TimeProvider _timeProvider;
    private readonly ILogger _logger;
    private readonly SemaphoreSlim _oneAtATime = new(1, 1);
    private readonly WriteBarrier _writes;
    private readonly CancellationTokenSource _stopping = new();
    private readonly Channel<bool> _commitRequested = Channel.CreateBounded<bool>(new BoundedChannelOptions(1) { FullMode = BoundedChannelFullMode.DropWrite });
    private TaskCompletionSource _nextCommit = NewRound();
    private Task _periodic = Task.CompletedTask;
    private Task _commits = Task.CompletedTask;
    private long _writesSinceCheckpoint;
    private long _checkpointCount;
    private int _disposed;

    public Checkpointer(FasterKV<SpanByte, SpanByte> store, WriteBarrier writes, TimeProvider timeProvider, ILogger logger)
    {
        _store = store;
        _writes = writes;
        _timeProvider = timeProvider;
        _logger = logger;
    }

    /// <summary>Gets the number of checkpoints completed since the store opened.</summary>
    public long CheckpointCount => Interlocked.Read(ref _checkpointCount);

    /// <summary>Starts the periodic checkpoints and, when <paramref name="groupCommit"/> is set, the group-commit loop.</summary>
    public void Start(TimeSpan interval, bool groupCommit)
    {
        _periodic = RunPeriodicAsync(interval, _stopping.Token);
        if (groupCommit)
        {
            _commits = RunCommitRoundsAsync(_stopping.Token);
        }
    }

    /// <summary>Notes a completed write, so the periodic checkpoint knows there is something to save.</summary>
    public void NoteWrite() => Interlocked.Increment(ref _writesSinceCheckpoint);

    /// <summary>
    /// Completes once a checkpoint that started after this call has completed, so every write the caller completed
    /// before calling is on disk. Concurrent callers share one checkpoint.
    /// </summary>
    public Task WaitForCommitAsync()
    {
        Task round = Volatile.Read(ref _nextCommit).Task;
        _commitRequested.Writer.TryWrite(true);
        return round;
    }

    /// <summary>Takes a checkpoint now and completes when it is durable.</summary>
    public async Task CheckpointAsync(string reason, CancellationToken cancellationToken = default)
    {
        await _oneAtATime.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            await TakeCheckpointAsync(reason).ConfigureAwait(false);
        }
        finally
        {
            _oneAtATime.Release();
        }
    }

    /// <summary>Runs <paramref name="action"/> (a compaction) with no checkpoint in progress, then checkpoints its result.</summary>
    public async Task<T> RunThenCheckpointAsync<T>(Func<Task<T>> action, string reason, CancellationToken cancellationToken = default)
    {
        await _oneAtATime.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            T result = await action().ConfigureAwait(false);
            await TakeCheckpointAsync(reason).ConfigureAwait(false);
            return result;
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
        await IgnoreCancellation(_commits).ConfigureAwait(false);
        await CheckpointAsync("close").ConfigureAwait(false);
        _nextCommit.TrySetResult();
        _stopping.Dispose();
    }

    private static TaskCompletionSource NewRound() => new(TaskCreationOptions.RunContinuationsAsynchronously);

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

    private async Task RunCommitRoundsAsync(CancellationToken stopping)
    {
        while (await _commitRequested.Reader.WaitToReadAsync(stopping).ConfigureAwait(false))
        {
            _commitRequested.Reader.TryRead(out _);
            await _oneAtATime.WaitAsync(stopping).ConfigureAwait(false);
            try
            {
                // The round closes once the barrier has drained the writes in flight, just before the checkpoint
                // starts: whoever joined it had finished its write by then, those the drain waited for included.
                // (Closing it before the drain sent them to the next round, one more checkpoint to wait for.)
                TaskCompletionSource? round = null;
                try
                {
                    await TakeCheckpointAsync("commit", () => round = Interlocked.Exchange(ref _nextCommit, NewRound())).ConfigureAwait(false);
                    round!.SetResult();
                }
                catch (Exception e)
                {
                    Log.CheckpointFailed(_logger, "commit", e);
                    round ??= Interlocked.Exchange(ref _nextCommit, NewRound());
                    round.SetException(e);
                }
            }
            finally
            {
                _oneAtATime.Release();
            }
        }
    }

    private async Task RunPeriodicAsync(TimeSpan interval, CancellationToken stopping)
    {
        using var timer = new PeriodicTimer(interval, _timeProvider);
        while (await timer.WaitForNextTickAsync(stopping).ConfigureAwait(false))
        {
            if (Interlocked.Read(ref _writesSinceCheckpoint) == 0)
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
                Log.CheckpointFailed(_logger, "periodic", e);
            }
        }
    }

    /// <summary>Takes one checkpoint. The caller holds <see cref="_oneAtATime"/>.</summary>
    /// <param name="reason">Named in the log.</param>
    /// <param name="writesDrained">Runs once no write is in flight and new ones wait, before the checkpoint starts.</param>
    private async Task TakeCheckpointAsync(string reason, Action? writesDrained = null)
    {
        long started = _timeProvider.GetTimestamp();
        await _writes.CloseAsync().ConfigureAwait(false);
        writesDrained?.Invoke();
        Guid token;
        try
        {
            Interlocked.Exchange(ref _writesSinceCheckpoint, 0);
            while (!_store.TryInitiateHybridLogCheckpoint(out token, CheckpointType.FoldOver))
            {
                // Only this class starts checkpoints, so FASTER is busy with something else of its own (an index
                // resize); it finishes shortly.
                await Task.Yield();
            }

            await _store.CompleteCheckpointAsync().ConfigureAwait(false);
        }
        finally
        {
            _writes.Open();
        }

        Interlocked.Increment(ref _checkpointCount);
        Log.CheckpointTaken(_logger, reason, token, _store.CurrentVersion - 1, _timeProvider.GetElapsedTime(started));
    }
}
