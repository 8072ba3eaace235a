using System;
using System.Globalization;
using System.Numerics;
using KeyValueStore.Engine;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.Storage;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// Turns --memory-size, --value-size and --records into the FASTER store's sizes. --memory-size is the
/// log memory (<see cref="MixedStorageKVStoreOptions.MemorySizeBits"/>): a power of two, split into
/// eight pages when a record fits (at most 32 MB pages, the store's default page), else into pages of
/// the smallest power of two that holds one record, of which memory must hold at least two. A record is sized as the
/// typed backends store it (<see cref="RecordSizeInLog"/>), a few bytes more than the engine's, so that every FASTER
/// backend, typed or engine, runs on the same pages for the same options.
/// </summary>
internal static class FasterStoreSizing
{
    private const int PreferredPagesInMemoryBits = 3;
    private const int MaxPageSizeBits = 25;

    // The load test measures bytes on disk as file sizes, and FASTER preallocates whole segments:
    // 16 MB segments (the store's default is 256 MB) keep that overcount to at most one partly used segment;
    // --segment-size sets another.
    private const int DefaultSegmentSizeBits = 24;

    // A long key in MessagePack: a type byte and up to 8 bytes.
    private const int TypedKeyMaxSize = 1 + sizeof(long);

    /// <summary>Why these sizes cannot make a store, naming the options to change; null when they can.</summary>
    public static string? Problem(long memorySizeBytes, int valueSize, long? segmentSizeBytes = null)
    {
        int memoryBits = BitOperations.Log2((ulong)memorySizeBytes);
        int pageBits = MinPageBits(valueSize);
        if (memoryBits >= pageBits + 1)
        {
            long page = 1L << PageSizeBits(memorySizeBytes, valueSize);
            return segmentSizeBytes < page
                ? $"--segment-size {ByteSize.Format(segmentSizeBytes.Value)} is smaller than a log page ({ByteSize.Format(page)} for --memory-size {ByteSize.Format(memorySizeBytes)} and --value-size {valueSize}); a segment file holds whole pages. Use --segment-size {ByteSize.Format(page)} or more."
                : null;
        }

        long recordSize = RecordSizeInLog(valueSize);
        return string.Create(CultureInfo.InvariantCulture,
            $"--memory-size {ByteSize.Format(memorySizeBytes)} is too small for --value-size {valueSize}: a record takes {recordSize} bytes in FASTER's log, "
            + $"a log page must hold one ({ByteSize.Format(1L << pageBits)} pages), and the log memory must hold two pages. Use --memory-size {ByteSize.Format(2L << pageBits)} or more.");
    }

    public static MixedStorageKVStoreOptions Options(BackendContext context)
    {
        if (Problem(context.MemorySizeBytes, context.ValueSize, context.SegmentSizeBytes) is string problem)
        {
            throw new ArgumentException(problem, nameof(context));
        }

        int memoryBits = BitOperations.Log2((ulong)context.MemorySizeBytes);
        int pageBits = PageSizeBits(context.MemorySizeBytes, context.ValueSize);
        return new MixedStorageKVStoreOptions
        {
            LogDirectory = context.Directory,
            LogFileNamePrefix = "loadtest",
            MemorySizeBits = memoryBits,
            PageSizeBits = pageBits,
            SegmentSizeBits = SegmentSizeBits(context.MemorySizeBytes, context.ValueSize, context.SegmentSizeBytes),
            IndexNumBuckets = IndexBuckets(context.Records),

            // The store's default interval when on: a write that finds the log at the threshold starts compaction anyway.
            TimeBetweenLogCompactionsMS = context.Compaction ? new MixedStorageKVStoreOptions().TimeBetweenLogCompactionsMS : -1,
            LogDiskBudgetBytes = context.DiskBudgetBytes,
            LogMutableFraction = context.MutableFraction,
            CompactionLogToLiveRatio = context.CompactionRatio ?? new MixedStorageKVStoreOptions().CompactionLogToLiveRatio,
        };
    }

    /// <summary>log2 of the segment size: --segment-size when given, else 16 MB, or the page when that is larger.</summary>
    public static int SegmentSizeBits(long memorySizeBytes, int valueSize, long? segmentSizeBytes) =>
        segmentSizeBytes is long bytes ? BitOperations.Log2((ulong)bytes) : Math.Max(PageSizeBits(memorySizeBytes, valueSize), DefaultSegmentSizeBits);

    /// <summary>log2 of the page size: eight pages in memory when a record fits, else the smallest page that holds one.</summary>
    public static int PageSizeBits(long memorySizeBytes, int valueSize) =>
        Math.Max(MinPageBits(valueSize), Math.Min(MaxPageSizeBits, BitOperations.Log2((ulong)memorySizeBytes) - PreferredPagesInMemoryBits));

    /// <summary>One hash bucket (seven entries) per two records, from 16 K buckets (1 MB) to 16 M buckets (1 GB).</summary>
    private static long IndexBuckets(long records) =>
        (long)BitOperations.RoundUpToPowerOf2((ulong)Math.Clamp(records / 2, 1L << 14, 1L << 24));

    /// <summary>
    /// The bytes a record takes in FASTER's log, the larger of its two encodings: the typed backends' (a MessagePack
    /// integer key of up to 9 bytes; a value of one envelope byte, a MessagePack bin header of 2 to 5 bytes and the
    /// value's bytes, never compressed larger) rather than the engine's (the 8 key bytes and the value as they are).
    /// </summary>
    public static long RecordSizeInLog(int valueSize) =>
        PinnedRecord.SizeInLog(TypedKeyMaxSize, TypedValueOverhead(valueSize) + valueSize);

    /// <summary>The envelope's codec byte and MessagePack's bin8, bin16 or bin32 header.</summary>
    private static int TypedValueOverhead(int valueSize) => 1 + (valueSize <= byte.MaxValue ? 2 : valueSize <= ushort.MaxValue ? 3 : 5);

    private static int MinPageBits(int valueSize)
    {
        long recordSize = RecordSizeInLog(valueSize);
        return Math.Max(StoreSettingsValidator.MinPageSizeBits, BitOperations.Log2(BitOperations.RoundUpToPowerOf2((ulong)recordSize)));
    }
}
