using System;
using System.Numerics;

namespace KeyValueStore.Concurrency;

/// <summary>
/// Where each processor's cell lies in an array of 8-byte entries (references or longs) laid out one cell per processor,
/// 128 bytes apart: the layout <see cref="CoreLocalSlots{T}"/> and <see cref="PerProcessorCount"/> share.
/// </summary>
/// <remarks>
/// 128 bytes, two cache lines, so that adjacent-line prefetching does not pair two processors' cells either; one stride
/// before the first cell keeps it off the cache line of the array's header. Processor numbers are masked to a power of
/// two at least the processor count (at most 1,024), so numbers beyond it share cells: a cell is a hint, never an owner.
/// </remarks>
internal readonly struct ProcessorCells
{
    /// <summary>Entries from one cell's start to the next: 16 of 8 bytes.</summary>
    public const int Stride = 16;

    private readonly int _mask;

    /// <param name="processors">How many processors to keep cells for; rounded up to a power of two.</param>
    public ProcessorCells(int processors)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(processors, 1);
        Count = (int)BitOperations.RoundUpToPowerOf2((uint)Math.Min(processors, 1024));
        _mask = Count - 1;
    }

    /// <summary>Gets the number of cells.</summary>
    public int Count { get; }

    /// <summary>Gets the length of the array that holds every cell.</summary>
    public int ArrayLength => (Count + 1) * Stride;

    /// <summary>The index of the first entry of <paramref name="processor"/>'s cell.</summary>
    public int StartOf(int processor) => ((processor & _mask) + 1) * Stride;
}
