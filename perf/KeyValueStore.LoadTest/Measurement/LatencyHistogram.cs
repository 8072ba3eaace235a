using System;
using System.Numerics;

namespace KeyValueStore.LoadTest.Measurement;

/// <summary>
/// A log-linear histogram of latencies in nanoseconds, the idea behind HDR histograms (not available
/// from our package registry): values below 128 get a bucket each; above, each power of two is split
/// into 128 equal buckets. A bucket's width is therefore at most 1/128 of any value in it, and a
/// quantile is reported as the upper end of its bucket: never below the true value, and at most
/// 0.79% above it. 7,424 buckets (58 KB) cover every long. Not thread-safe: each worker records into
/// its own and they are merged at the end.
/// </summary>
internal sealed class LatencyHistogram
{
    private const int SubBucketBits = 7;
    private const int SubBucketCount = 1 << SubBucketBits;
    private const int BucketCount = (64 - SubBucketBits + 1) << SubBucketBits;

    private readonly long[] _counts = new long[BucketCount];

    public long Count { get; private set; }

    public long Min { get; private set; } = long.MaxValue;

    public long Max { get; private set; }

    public double Sum { get; private set; }

    public double Mean => Count == 0 ? 0 : Sum / Count;

    public void Record(long nanoseconds) => Record(nanoseconds, 1);

    /// <summary>Records <paramref name="count"/> operations that each took <paramref name="nanoseconds"/>: the writes of one batch.</summary>
    public void Record(long nanoseconds, long count)
    {
        if (count <= 0)
        {
            return;
        }

        long value = Math.Max(nanoseconds, 0);
        _counts[IndexOf(value)] += count;
        Count += count;
        Sum += (double)value * count;
        Min = Math.Min(Min, value);
        Max = Math.Max(Max, value);
    }

    /// <summary>Forgets everything recorded.</summary>
    public void Clear()
    {
        Array.Clear(_counts);
        Count = 0;
        Sum = 0;
        Min = long.MaxValue;
        Max = 0;
    }

    public void Add(LatencyHistogram other)
    {
        for (int i = 0; i < BucketCount; i++)
        {
            _counts[i] += other._counts[i];
        }

        Count += other.Count;
        Sum += other.Sum;
        Min = Math.Min(Min, other.Min);
        Max = Math.Max(Max, other.Max);
    }

    /// <summary>The latency that <paramref name="quantile"/> (0 to 1) of the recorded values do not exceed; 0 when empty.</summary>
    public long ValueAtQuantile(double quantile)
    {
        if (Count == 0)
        {
            return 0;
        }

        long rank = Math.Clamp((long)Math.Ceiling(quantile * Count), 1, Count);
        long seen = 0;
        for (int i = 0; i < BucketCount; i++)
        {
            seen += _counts[i];
            if (seen >= rank)
            {
                return Math.Min(HighestIn(i), Max);
            }
        }

        return Max;
    }

    internal static int IndexOf(long value)
    {
        if (value < SubBucketCount)
        {
            return (int)value;
        }

        int magnitude = BitOperations.Log2((ulong)value); // >= SubBucketBits
        int shift = magnitude - SubBucketBits;
        int subBucket = (int)(value >> shift) - SubBucketCount;
        return ((shift + 1) << SubBucketBits) + subBucket;
    }

    /// <summary>The largest value that falls in bucket <paramref name="index"/>.</summary>
    internal static long HighestIn(int index)
    {
        if (index < SubBucketCount)
        {
            return index;
        }

        int shift = (index >> SubBucketBits) - 1;
        long lowest = (long)((ulong)(SubBucketCount + (index & (SubBucketCount - 1))) << shift);
        return lowest + ((1L << shift) - 1);
    }
}
