using System;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Concurrency;

/// <summary>
/// Admits operations until the store closes, and lets closing wait until every admitted operation has
/// left. This is what makes disposal safe while operations are in flight: FASTER is released only
/// after the last one is done with it, and operations arriving later get
/// <see cref="ObjectDisposedException"/> instead of touching released memory.
/// </summary>
internal sealed class OperationGate
{
    // Bit 0: closed. The rest: twice the number of operations inside.
    private const long ClosedFlag = 1;
    private const long OneOperation = 2;

    private readonly TaskCompletionSource _drained = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _state;

    public bool IsClosed => (Volatile.Read(ref _state) & ClosedFlag) != 0;

    /// <summary>Enters, or throws <see cref="ObjectDisposedException"/> if the gate has closed. Disposing the admission exits.</summary>
    public Scope Enter(object owner)
    {
        if (!TryEnter())
        {
            throw new ObjectDisposedException(owner.GetType().Name, "The store has been disposed; create a new store to continue.");
        }

        return new Scope(this);
    }

    /// <summary>Enters and returns true, or returns false if the gate has closed. A true return must be paired with <see cref="Exit"/>.</summary>
    public bool TryEnter()
    {
        long state = Interlocked.Add(ref _state, OneOperation);
        if ((state & ClosedFlag) != 0)
        {
            Exit();
            return false;
        }

        return true;
    }

    public void Exit()
    {
        long state = Interlocked.Add(ref _state, -OneOperation);
        if (state == ClosedFlag)
        {
            _drained.TrySetResult();
        }
    }

    /// <summary>Closes the gate. Returns true for the first caller only; every caller may then await <see cref="WhenDrained"/>.</summary>
    public bool Close()
    {
        long state = Interlocked.Or(ref _state, ClosedFlag);
        if ((state & ClosedFlag) != 0)
        {
            return false;
        }

        if (state == 0)
        {
            _drained.TrySetResult();
        }

        return true;
    }

    /// <summary>Completes once the gate is closed and no operation is inside.</summary>
    public Task WhenDrained => _drained.Task;

    /// <summary>One operation inside the gate; disposing it lets the operation out.</summary>
    public readonly struct Scope(OperationGate gate) : IDisposable
    {
        public void Dispose() => gate.Exit();
    }
}
