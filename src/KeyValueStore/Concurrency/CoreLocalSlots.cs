using System;
using System.Diagnostics.CodeAnalysis;
using System.Threading;

namespace KeyValueStore.Concurrency;

/// <summary>
/// A few slots per processor where objects are parked for the next caller on the same processor, so that handing an
/// object from one operation to the next touches a cache line that processor already holds. Any caller may take from any
/// processor's slots (<see cref="TryTakeAny"/>), so nothing parked is out of reach.
/// </summary>
/// <remarks>
/// Why: the session pool's shared queue and count were written by every operation on every processor, and on the
/// 2-core VM those lines travelling between the cores cost more than the rest of an in-memory operation's bookkeeping
/// (issue 19; docs/benchmarks.md, the hot path). The slots are entries of one array, each processor's group in its own
/// cell (<see cref="ProcessorCells"/>).
/// <para>
/// The processor is <see cref="Thread.GetCurrentProcessorId"/>, a hint: a thread may move right after asking, and
/// processor numbers beyond the group count share groups. Both only make a caller look in another processor's
/// slots; every slot is taken and filled by one atomic exchange, so no object is ever handed to two callers.
/// </para>
/// </remarks>
internal sealed class CoreLocalSlots<T>
    where T : class
{
    /// <summary>Slots per processor: enough for the callers one processor interleaves, few enough to scan in one cache line.</summary>
    public const int SlotsPerGroup = 4;

    private readonly T?[] _slots;
    private readonly ProcessorCells _groups;
    private readonly Func<int> _currentProcessor;

    /// <summary>Slots for each processor of this machine.</summary>
    public CoreLocalSlots()
        : this(Environment.ProcessorCount, Thread.GetCurrentProcessorId)
    {
    }

    /// <param name="processors">How many processors to keep groups for; rounded up to a power of two.</param>
    /// <param name="currentProcessor">The processor the caller runs on (tests simulate processors with it).</param>
    public CoreLocalSlots(int processors, Func<int> currentProcessor)
    {
        _groups = new ProcessorCells(processors);
        _currentProcessor = currentProcessor;
        _slots = new T?[_groups.ArrayLength];
    }

    /// <summary>Takes an object parked on the caller's processor, if there is one.</summary>
    public bool TryTakeLocal([NotNullWhen(true)] out T? item) => TryTakeFromGroup(_groups.StartOf(_currentProcessor()), out item);

    /// <summary>Takes an object parked on any processor, starting with the caller's.</summary>
    public bool TryTakeAny([NotNullWhen(true)] out T? item)
    {
        int first = _currentProcessor();
        for (int i = 0; i < _groups.Count; i++)
        {
            if (TryTakeFromGroup(_groups.StartOf(first + i), out item))
            {
                return true;
            }
        }

        item = null;
        return false;
    }

    /// <summary>
    /// Parks <paramref name="item"/> in a free slot of the caller's processor. Returns the slot, for <see cref="TakeAt"/>,
    /// or -1 when that processor's slots are all taken (the caller then keeps the object).
    /// </summary>
    public int TryParkLocal(T item)
    {
        int start = _groups.StartOf(_currentProcessor());
        for (int slot = start; slot < start + SlotsPerGroup; slot++)
        {
            if (Volatile.Read(ref _slots[slot]) is null && Interlocked.CompareExchange(ref _slots[slot], item, null) is null)
            {
                return slot;
            }
        }

        return -1;
    }

    /// <summary>Takes whatever is parked in <paramref name="slot"/> now: the object parked there, or another caller took it first.</summary>
    public T? TakeAt(int slot) => Interlocked.Exchange(ref _slots[slot], null);

    private bool TryTakeFromGroup(int start, [NotNullWhen(true)] out T? item)
    {
        for (int slot = start; slot < start + SlotsPerGroup; slot++)
        {
            if (Volatile.Read(ref _slots[slot]) is not null && Interlocked.Exchange(ref _slots[slot], null) is T taken)
            {
                item = taken;
                return true;
            }
        }

        item = null;
        return false;
    }
}
