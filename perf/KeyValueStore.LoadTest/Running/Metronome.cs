using System;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Channels;
using System.Threading.Tasks;

namespace KeyValueStore.LoadTest.Running;

/// <summary>
/// The schedule of a phase under --rate: start times evenly spaced at the rate from the phase's start, handed out in
/// order to whichever worker asks next. A thread of its own releases each start time when it falls due; a worker that
/// finds none due waits for the next, and one that takes a start time already past issues at once, the difference
/// being its lag. Operations held back by a slow store therefore show as lag, and the workers catch up afterwards
/// rather than skip them.
/// </summary>
/// <remarks>
/// Why a thread of its own that sleeps a millisecond at a time: .NET's timers (Task.Delay) count in the kernel's
/// coarse ticks, 4 ms on the machine of docs/benchmarks.md (a 1-ms delay took 4.3 ms at the median, 7.6 ms at p99),
/// which would issue the operations in bursts and report the timer as lag. Thread.Sleep sleeps on a precise timer.
/// At most <see cref="MaxBacklog"/> start times wait unclaimed: a run far behind its rate does not fill memory, and
/// its lag shows how far behind it is. The schedule's origin is read when <see cref="Start"/> is called, not when the
/// thread first runs: on a busy machine a new thread can start late, and the start times due meanwhile must not be lost.
/// </remarks>
internal sealed class Metronome : IDisposable
{
    /// <summary>The most start times released and not yet taken by a worker.</summary>
    internal const int MaxBacklog = 1 << 20;

    private readonly TimeProvider _time;
    private readonly double _ticksPerOperation;
    private readonly long _origin;
    private readonly Channel<long> _due;
    private readonly CancellationTokenSource _stop;
    private readonly Thread _thread;

    private Metronome(TimeProvider time, long operationsPerSecond, CancellationToken stop)
    {
        _time = time;
        _ticksPerOperation = (double)time.TimestampFrequency / operationsPerSecond;
        _origin = time.GetTimestamp();
        _due = Channel.CreateBounded<long>(new BoundedChannelOptions(MaxBacklog) { SingleWriter = true, FullMode = BoundedChannelFullMode.Wait });
        _stop = CancellationTokenSource.CreateLinkedTokenSource(stop);
        _thread = new Thread(ReleaseDueStarts) { IsBackground = true, Name = ThreadName };
    }

    /// <summary>The name of the thread that releases the start times.</summary>
    internal const string ThreadName = "load-test metronome";

    /// <summary>Starts a schedule of <paramref name="operationsPerSecond"/> from now, until <paramref name="stop"/>.</summary>
    public static Metronome Start(TimeProvider time, long operationsPerSecond, CancellationToken stop)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(operationsPerSecond, 1);
        var metronome = new Metronome(time, operationsPerSecond, stop);
        metronome._thread.Start();
        return metronome;
    }

    /// <summary>
    /// Waits for the next start time to fall due, takes it, and returns how late (in the clock's ticks) the operation
    /// is issued; returns at once, with 0, when the phase is stopped.
    /// </summary>
    public ValueTask<long> WaitForTurnAsync() =>
        _due.Reader.TryRead(out long start) ? ValueTask.FromResult(LagOf(start)) : WaitForNextAsync();

    // Pooled: a paced run waits here for most of its turns, and a state machine boxed at each wait was the larger part
    // of the 79-80 B per operation a paced run allocated beside a store that allocated nothing (35 B now; .ci/run).
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<long> WaitForNextAsync()
    {
        try
        {
            return LagOf(await _due.Reader.ReadAsync(_stop.Token).ConfigureAwait(false));
        }
        catch (Exception e) when (e is OperationCanceledException or ChannelClosedException && _stop.IsCancellationRequested)
        {
            return 0; // The phase ended during the wait: the caller sees the token and stops.
        }
    }

    private long LagOf(long start) => Math.Max(0, _time.GetTimestamp() - start);

    private void ReleaseDueStarts()
    {
        long released = 0;
        while (!_stop.IsCancellationRequested)
        {
            long due = (long)((_time.GetTimestamp() - _origin) / _ticksPerOperation) + 1;
            for (; released < due && _due.Writer.TryWrite(_origin + (long)(released * _ticksPerOperation)); released++)
            {
            }

            Thread.Sleep(1);
        }

        _due.Writer.TryComplete();
    }

    /// <summary>
    /// Stops the schedule, whether or not the phase's token was cancelled, and waits for its thread to end: a phase
    /// (or a test) that fails before cancelling cannot leave Dispose waiting on a thread that never stops.
    /// </summary>
    public void Dispose()
    {
        _stop.Cancel();
        _thread.Join();
        _stop.Dispose();
    }
}
