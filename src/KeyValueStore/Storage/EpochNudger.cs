using System;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Storage;

/// <summary>
/// Keeps FASTER's epoch moving while operations wait on it. An operation that FASTER left pending
/// (waiting for a page flush or a disk read) is awaited in slices of <see cref="Interval"/>; after
/// each slice that ends without a result, the epoch is refreshed from a dedicated session.
/// </summary>
/// <remarks>
/// Why: in FASTER 2.6.5, <c>LightEpoch.Suspend</c> clears the thread's epoch entry and then reads the
/// drain count with no fence in between, while a thread that adds a drain action skips draining when
/// it sees another thread still protected. On x86 both can miss each other (a store-load race), which
/// would strand the action, for instance the flush of the page every waiting upsert needs, until some
/// thread next enters the epoch; with every caller awaiting that flush, nobody would, and the store
/// would stall at 0% CPU. This comes from reading FASTER's source, not from an observed stall (the
/// stall we did observe was a device-disposal race; see <see cref="TruncationSafeDevice"/>), so the
/// guard is kept cheap: a refresh (resume and suspend) drains whatever is stranded, and it only runs
/// for operations that have already waited a full interval.
/// The refreshing session is dedicated and guarded by a lock: FASTER sessions admit one caller at a
/// time, and the waiting operations' own sessions may be resumed by FASTER at any moment.
/// </remarks>
internal sealed class EpochNudger : IDisposable
{
    public static readonly TimeSpan Interval = TimeSpan.FromMilliseconds(10);

    private readonly StoreSession _session;
    private readonly TimeProvider _timeProvider;
    private readonly object _sessionLock = new();
    private long _nudges;
    private bool _disposed;

    public EpochNudger(StoreSession session, TimeProvider timeProvider)
    {
        _session = session;
        _timeProvider = timeProvider;
    }

    /// <summary>Gets how many refreshes have been made; for tests and diagnostics.</summary>
    public long NudgeCount => Interlocked.Read(ref _nudges);

    /// <summary>
    /// Awaits a FASTER operation, refreshing the epoch each time it has waited <see cref="Interval"/> without finishing.
    /// Deliberately not cancellable: an operation issued to FASTER must finish before its session is reused.
    /// </summary>
    public async ValueTask<T> WaitAsync<T>(ValueTask<T> operation)
    {
        if (operation.IsCompleted)
        {
            return operation.Result;
        }

        Task<T> task = operation.AsTask();
        while (true)
        {
            try
            {
                return await task.WaitAsync(Interval, _timeProvider).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                Nudge();
            }
        }
    }

    public void Dispose()
    {
        lock (_sessionLock)
        {
            _disposed = true;
            _session.Dispose();
        }
    }

    private void Nudge()
    {
        // One refresh at a time is enough: a refresh drains every action that is safe to run.
        if (!Monitor.TryEnter(_sessionLock))
        {
            return;
        }

        try
        {
            if (!_disposed)
            {
                _session.Refresh();
                Interlocked.Increment(ref _nudges);
            }
        }
        finally
        {
            Monitor.Exit(_sessionLock);
        }
    }
}
