using System;
using System.Threading;

namespace KeyValueStore.Concurrency;

/// <summary>
/// A count kept in one cell per processor (<see cref="ProcessorCells"/>), so that counting in and out touches a cache line
/// the caller's processor already holds. Reading the total sums the cells.
/// </summary>
/// <remarks>
/// Why: admission counts every operation in and out, and one shared counter written by every operation on every
/// processor was a cache line travelling between them twice per operation (issue 19). Whoever counts in on a cell counts
/// out on the same cell (<see cref="Increment"/> returns it), so no cell ever goes below zero, and a total read one cell
/// at a time never misses an operation that was counted in before the read began and is still in: it is the closing
/// check's guarantee (<see cref="OperationGate"/>, <see cref="WriteBarrier"/>).
/// </remarks>
internal sealed class PerProcessorCount
{
    private readonly long[] _cells;
    private readonly ProcessorCells _layout = new(Environment.ProcessorCount);

    public PerProcessorCount() => _cells = new long[_layout.ArrayLength];

    /// <summary>
    /// A cell whoever cannot carry its cell from counting in to counting out uses for both (the write barrier's waiters
    /// and unscoped writers): the first processor's (<see cref="ProcessorCells.StartOf"/> of 0).
    /// </summary>
    public const int SharedCell = ProcessorCells.Stride;

    /// <summary>Counts one in on the caller's processor's cell and returns that cell, for <see cref="Decrement"/>.</summary>
    public int Increment()
    {
        int cell = _layout.StartOf(Thread.GetCurrentProcessorId());
        Interlocked.Increment(ref _cells[cell]);
        return cell;
    }

    /// <summary>Counts <paramref name="count"/> in on <paramref name="cell"/>.</summary>
    public void Add(int cell, int count) => Interlocked.Add(ref _cells[cell], count);

    /// <summary>Counts one out on <paramref name="cell"/>, the cell it was counted in on.</summary>
    public void Decrement(int cell) => Interlocked.Decrement(ref _cells[cell]);

    /// <summary>Sums the cells, one at a time.</summary>
    public long Sum()
    {
        long sum = 0;
        for (int processor = 0; processor < _layout.Count; processor++)
        {
            sum += Volatile.Read(ref _cells[_layout.StartOf(processor)]);
        }

        return sum;
    }
}
