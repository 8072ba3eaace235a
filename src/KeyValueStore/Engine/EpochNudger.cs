using System;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Keeps FASTER's epoch moving while operations wait on it. While at least one operation is
/// pending in FASTER (waiting for a page flush or a disk read), a single watch loop refreshes the
/// epoch from a dedicated session every <see cref="Interval"/>; when none is pending, the loop ends.
/// </summary>
/// <remarks>
/// Why: in FASTER 2.6.5, <c>LightEpoch.Suspend</c> clears the thread's epoch entry and then reads the
/// drain count with no fence in between, while a thread that adds a drain action skips draining when
/// it sees another thread still protected. On x86 both can miss each other (a store-load race), which
/// would strand the action, for instance the flush of the page every waiting upsert needs, until some
/// thread next enters the epoch; with every caller awaiting that flush, nobody would, and the store
/// would stall at 0% CPU. This comes from reading FASTER's source, not from an observed stall (the
/// stalls we did observe were device-disposal races; see <see cref="TruncationSafeDevice"/>).
/// The guard is store-wide, like the epoch: an operation only counts itself in and out (no timer or
/// allocation per operation), and the one loop does the refreshing. A refresh (resume and suspend)
/// drains whatever is stranded; the session is dedicated because FASTER sessions admit one caller at
/// a time, and the waiting operations' own sessions may be resumed by FASTER at any moment.
/// </remarks>
internal sealed class EpochNudger : IDisposable
{
    public static readonly TimeSpan Interval = TimeSpan.FromMilliseconds(10);

    private readonly StoreSession _session;
    private readonly TimeProvider _timeProvider;
    private readonly CancellationTokenSource _stopping = new();
    private readonly object _sessionLock = new();
    private int _pending;
    private int _watching;
    private long _nudges;

    public EpochNudger(StoreSession session, TimeProvider timeProvider)
    {
        _session = session;
        _timeProvider = timeProvider;
    }

    /// <summary>Gets whether the watch loop is running, which it does only while operations are pending.</summary>
    public bool IsWatching => Volatile.Read(ref _watching) != 0;

    /// <summary>Gets how many refreshes have been made; for tests and diagnostics.</summary>
    public long NudgeCount => Interlocked.Read(ref _nudges);

    /// <summary>
    /// Awaits a FASTER operation, counted as pending while it has not finished.
    /// Deliberately not cancellable: an operation issued to FASTER must finish before its session is reused.
    /// </summary>
    public ValueTask<T> WaitAsync<T>(ValueTask<T> operation) => WaitAsync(operation, abandonOn: null);

    /// <summary>
    /// Awaits a FASTER operation that may wait for a page flush (a write needing room in memory), abandoning the wait
    /// once <paramref name="abandonOn"/> records a failed disk write: FASTER never retries a failed flush, so the
    /// operation would wait forever. An abandoned operation stays parked in FASTER and never runs, since what it waits
    /// for never comes; its session holds nothing of it (FASTER suspends the session before parking), so the caller
    /// may give the session back.
    /// </summary>
    /// <exception cref="StoreFaultedException">The store faulted while the operation waited.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T> WaitAsync<T>(ValueTask<T> operation, StoreFault? abandonOn)
    {
        if (operation.IsCompletedSuccessfully)
        {
            return operation.Result;
        }

        Interlocked.Increment(ref _pending);
        if (Interlocked.CompareExchange(ref _watching, 1, 0) == 0)
        {
            _ = WatchAsync();
        }

        try
        {
            if (abandonOn is null)
            {
                return await operation.ConfigureAwait(false);
            }

            return await operation.AsTask().WaitAsync(abandonOn.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (abandonOn?.IsFaulted == true)
        {
            throw abandonOn.ToException();
        }
        finally
        {
            Interlocked.Decrement(ref _pending);
        }
    }

    /// <summary>Stops the watch loop and disposes the session. Call once no operation is pending (the store drains them first).</summary>
    public void Dispose()
    {
        _stopping.Cancel();
        lock (_sessionLock)
        {
            _session.Dispose();
        }
    }

    private async Task WatchAsync()
    {
        try
        {
            using var timer = new PeriodicTimer(Interval, _timeProvider);
            while (await timer.WaitForNextTickAsync(_stopping.Token).ConfigureAwait(false))
            {
                if (Volatile.Read(ref _pending) > 0)
                {
                    Nudge();
                    continue;
                }

                // Nothing pending: stop watching, unless an operation arrived while we decided to.
                Volatile.Write(ref _watching, 0);
                if (Volatile.Read(ref _pending) == 0 || Interlocked.CompareExchange(ref _watching, 1, 0) != 0)
                {
                    return;
                }
            }
        }
        catch (OperationCanceledException)
        {
        }
    }

    private void Nudge()
    {
        lock (_sessionLock)
        {
            if (!_stopping.IsCancellationRequested)
            {
                _session.Refresh();
                Interlocked.Increment(ref _nudges);
            }
        }
    }
}
