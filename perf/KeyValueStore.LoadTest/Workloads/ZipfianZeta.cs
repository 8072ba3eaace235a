using System;
using System.Collections.Concurrent;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>
/// zeta(n, theta) = sum over i = 1..n of 1 / i^theta, the normalising constant of a zipfian
/// distribution over n items. Summing it takes n powers (about 2 seconds for 10^8 items), so the value
/// for the initial record count is computed once per process and shared by every worker.
/// </summary>
internal static class ZipfianZeta
{
    public const double Theta = 0.99;

    private static readonly ConcurrentDictionary<long, double> Cache = new();

    public static double Of(long n) => Cache.GetOrAdd(n, static count => Extend(0, 0, count));

    /// <summary>zeta(to) from zeta(from): adds the terms from + 1 .. to.</summary>
    public static double Extend(long from, double zetaFrom, long to)
    {
        double sum = zetaFrom;
        for (long i = from + 1; i <= to; i++)
        {
            sum += 1.0 / Math.Pow(i, Theta);
        }

        return sum;
    }
}
