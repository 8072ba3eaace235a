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
/// <remarks>
/// The operations inside are a <see cref="PerProcessorCount"/>: every operation crosses the gate twice, and a count
/// shared by all processors made each crossing a cache miss on the others (issue 19). An operation counts itself in and
/// then reads the closed flag; the closer sets the flag and then sums the count. Both first steps are full fences, so
/// either the operation sees the gate closed (and leaves at once), or the closer's sum includes it. After the close,
/// whoever leaves sums again, and the one that finds no operation inside completes <see cref="WhenDrained"/>.
/// </remarks>
internal sealed class OperationGate
{
    private readonly TaskCompletionSource _drained = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly PerProcessorCount _inside = new();
    private int _closed;

    public bool IsClosed => Volatile.Read(ref _closed) != 0;

    /// <summary>Enters, or throws <see cref="ObjectDisposedException"/> if the gate has closed. Disposing the admission exits.</summary>
    public Scope Enter(object owner)
    {
        if (!TryEnter(out Admission admission))
        {
            throw new ObjectDisposedException(owner.GetType().Name, "The store has been disposed; create a new store to continue.");
        }

        return new Scope(admission);
    }

    /// <summary>Enters and returns true, or returns false if the gate has closed. A true return must be paired with <see cref="Exit"/> of <paramref name="admission"/>.</summary>
    public bool TryEnter(out Admission admission)
    {
        admission = new Admission(this, _inside.Increment());
        if (Volatile.Read(ref _closed) != 0)
        {
            Exit(admission);
            admission = default;
            return false;
        }

        return true;
    }

    /// <summary>Lets the operation <paramref name="admission"/> admitted out.</summary>
    public void Exit(Admission admission)
    {
        _inside.Decrement(admission.Cell);
        if (Volatile.Read(ref _closed) != 0 && _inside.Sum() == 0)
        {
            _drained.TrySetResult();
        }
    }

    /// <summary>Closes the gate. Returns true for the first caller only; every caller may then await <see cref="WhenDrained"/>.</summary>
    public bool Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) != 0)
        {
            return false;
        }

        if (_inside.Sum() == 0)
        {
            _drained.TrySetResult();
        }

        return true;
    }

    /// <summary>Completes once the gate is closed and no operation is inside.</summary>
    public Task WhenDrained => _drained.Task;

    /// <summary>One operation's admission: where it was counted in, so that it is counted out there.</summary>
    public readonly record struct Admission(OperationGate Gate, int Cell);

    /// <summary>One operation inside the gate; disposing it lets the operation out.</summary>
    public readonly struct Scope(Admission admission) : IDisposable
    {
        public void Dispose() => admission.Gate.Exit(admission);
    }
}
