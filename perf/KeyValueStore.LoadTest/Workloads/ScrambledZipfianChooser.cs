using System;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>
/// Zipfian popularity, with the popular ranks scattered over the ids: rank r becomes id (r × s) mod n,
/// where s is close to n / φ (φ the golden ratio) and coprime with n. That map is a bijection, so every
/// id stays reachable and each keeps its rank's exact probability, and consecutive ranks land far
/// apart, so the hot keys are not the first ones loaded (and not neighbours in an ordered index).
/// </summary>
internal sealed class ScrambledZipfianChooser : IKeyChooser
{
    private const long LongProductLimit = 3_037_000_499;
    private readonly ZipfianGenerator _ranks;
    private long _strideCount;
    private long _stride;

    public ScrambledZipfianChooser(long initialCount)
    {
        _ranks = new ZipfianGenerator(initialCount);
    }

    public long Next(ref SplitMix64 random, long count)
    {
        long rank = _ranks.NextRank(ref random, count);
        if (count != _strideCount)
        {
            _stride = StrideFor(count);
            _strideCount = count;
        }

        // Below sqrt(2^63) ids the product fits a long; 128-bit division is several times slower.
        return count <= LongProductLimit
            ? rank * _stride % count
            : (long)((UInt128)(ulong)rank * (ulong)_stride % (ulong)count);
    }

    /// <summary>The smallest stride at or above n / φ that is coprime with n.</summary>
    internal static long StrideFor(long count)
    {
        if (count <= 2)
        {
            return 1;
        }

        long stride = (long)(count * 0.6180339887498949);
        while (Gcd(stride, count) != 1)
        {
            stride++;
        }

        return stride;
    }

    private static long Gcd(long a, long b)
    {
        while (b != 0)
        {
            (a, b) = (b, a % b);
        }

        return a;
    }
}
