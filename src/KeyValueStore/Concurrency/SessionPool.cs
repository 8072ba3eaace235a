using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Concurrency;

/// <summary>
/// A bounded pool of FASTER sessions (or anything else single-caller and disposable). Sessions are
/// created lazily, at most <c>capacity</c> of them; a caller that finds all in use waits
/// asynchronously, never blocking a thread.
/// </summary>
/// <remarks>
/// FASTER sessions are not thread-safe but, with the async API, are not tied to a thread either: one
/// caller at a time may use a session from any thread.
/// <para>
/// A returned session is parked on the returning caller's processor (<see cref="CoreLocalSlots{T}"/>), and the next
/// rent on that processor takes it from there: the common operation touches no line another processor writes. Only when
/// that processor has none parked does a rent go to the shared part: the permits, which count sessions that are in the
/// queue of idle ones or not yet created (<see cref="AsyncPermits"/>: no monitor on the way when one is free), and the
/// queue. A parked session keeps its permit, as a rented one does, so the pool never holds more than its capacity.
/// </para>
/// <para>
/// No parked session is out of reach of a caller who would otherwise wait: a renter that finds no permit counts itself
/// in <see cref="_slowRenters"/> and then looks in every processor's slots; a returning caller parks and then reads that
/// count, and when it is not zero takes its session back out to the shared part, where the permit it releases serves
/// the waiter. Both first steps are full fences, so one of the two always sees the other.
/// </para>
/// </remarks>
internal sealed class SessionPool<TSession> : IDisposable
    where TSession : class, IDisposable
{
    private readonly Func<TSession> _createSession;
    private readonly AsyncPermits _available;
    private readonly ConcurrentQueue<TSession> _idle = new();
    private readonly CoreLocalSlots<TSession> _parked;
    private readonly ConcurrentDictionary<TSession, bool> _abandoned = new(ReferenceEqualityComparer.Instance);
    private int _abandonedCount;
    private int _slowRenters;
    private int _created;
    private long _waits;
    private int _disposed;

    public SessionPool(int capacity, Func<TSession> createSession)
        : this(capacity, createSession, new CoreLocalSlots<TSession>())
    {
    }

    /// <param name="capacity">The most sessions that ever exist at once.</param>
    /// <param name="createSession">Creates a session when none is idle and fewer than <paramref name="capacity"/> exist.</param>
    /// <param name="parked">Where returned sessions wait for the next caller on the same processor.</param>
    public SessionPool(int capacity, Func<TSession> createSession, CoreLocalSlots<TSession> parked)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        Capacity = capacity;
        _createSession = createSession;
        _available = new AsyncPermits(capacity);
        _parked = parked;
    }

    public int Capacity { get; }

    /// <summary>Gets how many sessions have been created so far (never more than <see cref="Capacity"/>).</summary>
    public int CreatedCount => Volatile.Read(ref _created);

    /// <summary>Gets how many rentals have had to wait for a session since the pool was created.</summary>
    public long Waits => Interlocked.Read(ref _waits);

    /// <summary>
    /// Tests only: handed each rent that found no session at once, before its caller gets it. Such a rent's
    /// <see cref="ValueTask{TResult}"/> comes from a pooled box that may complete between its return and the caller's
    /// look at it; a test completes it here to make that order certain. Read only on that path, never on a rent served
    /// at once.
    /// </summary>
    internal Func<ValueTask<Scope>, ValueTask<Scope>>? SeeSlowRent { get; set; }

    /// <summary>
    /// Waits for a free session. The caller must dispose the returned <see cref="Scope"/>, also when its operation throws.
    /// A caller cancelled while waiting throws <see cref="OperationCanceledException"/> and gets no session.
    /// </summary>
    public ValueTask<Scope> RentAsync(CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);

        // A caller cancelled before it asked gets no session even when one is free: its operation is not issued.
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<Scope>(cancellationToken);
        }

        if (_parked.TryTakeLocal(out TSession? parked))
        {
            return new ValueTask<Scope>(new Scope(this, parked));
        }

        if (_available.TryTake())
        {
            return new ValueTask<Scope>(new Scope(this, TakeOrCreate()));
        }

        ValueTask<Scope> renting = RentSlowAsync(cancellationToken);
        return SeeSlowRent is { } see ? see(renting) : renting;
    }

    /// <summary>Disposes the idle sessions. Call only once no session is rented: the store drains its operations first.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        while (_idle.TryDequeue(out TSession? session) || _parked.TryTakeAny(out session))
        {
            session.Dispose();
        }
    }

    /// <summary>No session parked on this processor and no permit free: a session parked elsewhere, or wait for a permit.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<Scope> RentSlowAsync(CancellationToken cancellationToken)
    {
        // Counted in before looking, so that a caller parking a session meanwhile sees this one and hands it over (remarks).
        Interlocked.Increment(ref _slowRenters);
        try
        {
            if (_parked.TryTakeAny(out TSession? parked))
            {
                return new Scope(this, parked);
            }

            // A waiter cancelled before a session was handed to it never gets one (AsyncPermits).
            ValueTask taken = _available.TakeAsync(cancellationToken);
            if (!taken.IsCompleted)
            {
                Interlocked.Increment(ref _waits);
            }

            await taken.ConfigureAwait(false);
            return new Scope(this, TakeOrCreate());
        }
        finally
        {
            Interlocked.Decrement(ref _slowRenters);
        }
    }

    /// <summary>
    /// Marks a rented session as never to be handed out again: an operation the caller stopped waiting for may still
    /// run in it. When its lease is disposed, the pool drops it (without disposing it) and may create another.
    /// </summary>
    public void Abandon(TSession session)
    {
        if (_abandoned.TryAdd(session, true))
        {
            Interlocked.Increment(ref _abandonedCount);
        }
    }

    private void Return(TSession session)
    {
        // The count is checked first so that the common return, with nothing ever abandoned, costs one read.
        if (Volatile.Read(ref _abandonedCount) != 0 && _abandoned.TryRemove(session, out _))
        {
            Interlocked.Decrement(ref _abandonedCount);
            Interlocked.Decrement(ref _created);
            _available.Release();
            return;
        }

        if (Volatile.Read(ref _slowRenters) == 0)
        {
            int slot = _parked.TryParkLocal(session);
            if (slot >= 0)
            {
                // A renter may have started waiting since the check; then the session (or, if another caller took it
                // already, nothing) goes to the shared part, whose permit serves the waiter (remarks).
                if (Volatile.Read(ref _slowRenters) == 0 || _parked.TakeAt(slot) is not TSession unparked)
                {
                    return;
                }

                session = unparked;
            }
        }

        _idle.Enqueue(session);
        _available.Release();
    }

    private TSession TakeOrCreate()
    {
        if (_idle.TryDequeue(out TSession? session))
        {
            return session;
        }

        // The semaphore admitted us and no created session is idle, so fewer than Capacity exist.
        try
        {
            session = _createSession();
        }
        catch
        {
            _available.Release();
            throw;
        }

        Interlocked.Increment(ref _created);
        return session;
    }

    /// <summary>A rented session; disposing the lease gives it back to the pool.</summary>
    public readonly struct Scope(SessionPool<TSession> pool, TSession session) : IDisposable
    {
        public TSession Session => session;

        public void Dispose() => pool.Return(session);
    }
}
