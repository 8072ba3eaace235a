using System;
using System.Numerics;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// The in-process Garnet server's sizes for a run: its log memory (<c>--memory</c>) and hash index (<c>--index</c>), both
/// powers of two, since Garnet rounds either down to one. Garnet without a storage tier has nowhere to put a record that
/// leaves its log memory, and drops it, so the memory must hold every record with room to spare: the run phase copies
/// records updated outside the log's mutable region to its tail, and inserts add records.
/// </summary>
internal static class GarnetSizing
{
    /// <summary>The least log memory: Garnet's 32 MB pages, eight of them.</summary>
    public const long MinMemoryBytes = 256L << 20;

    /// <summary>The least index, Garnet's default 128 MB being more than a short run needs.</summary>
    public const long MinIndexBytes = 8L << 20;

    /// <summary>Log bytes per record besides the value's, generously: the record header (8), the key's length (4), the prefix and the MessagePack key (up to 9), the value's length (4) and MessagePack header (up to 5), alignment to 8.</summary>
    private const int RecordOverheadBytes = 64;

    /// <summary>The log memory over what the loaded records take: room for the copies and inserts of the run.</summary>
    private const int Headroom = 2;

    /// <summary>Hash index bytes per record: a 64-byte bucket holds 7 entries, so this leaves the index about half full at most.</summary>
    private const int IndexBytesPerRecord = 16;

    /// <summary>
    /// Log memory for <paramref name="records"/> records of <paramref name="valueSize"/> bytes: twice what they take, rounded
    /// up to a power of two, at least <see cref="MinMemoryBytes"/>.
    /// </summary>
    public static long MemoryBytes(long records, int valueSize) =>
        Math.Max(MinMemoryBytes, PowerOfTwoAtLeast(records * (valueSize + RecordOverheadBytes) * Headroom));

    /// <summary>The hash index for <paramref name="records"/> records, rounded up to a power of two, at least <see cref="MinIndexBytes"/>.</summary>
    public static long IndexBytes(long records) => Math.Max(MinIndexBytes, PowerOfTwoAtLeast(records * IndexBytesPerRecord));

    private static long PowerOfTwoAtLeast(long bytes) => (long)BitOperations.RoundUpToPowerOf2((ulong)Math.Max(bytes, 1));
}
