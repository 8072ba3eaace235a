using System;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>
/// Zipfian ranks with theta 0.99: rank 0 is the most popular, rank r has probability proportional to
/// 1 / (r + 1)^0.99. Uses the closed-form inversion of Gray et al., "Quickly Generating Billion-Record
/// Synthetic Databases" (SIGMOD 1994), the method YCSB uses. The item count may grow between calls
/// (inserts in workload D); the normalising constant is then extended by the new terms only.
/// </summary>
internal sealed class ZipfianGenerator
{
    private const double Theta = ZipfianZeta.Theta;
    private static readonly double Alpha = 1.0 / (1.0 - Theta);
    private static readonly double HalfPowTheta = Math.Pow(0.5, Theta);
    private static readonly double Zeta2 = 1.0 + HalfPowTheta;

    private long _count;
    private double _zeta;
    private double _eta;

    /// <summary>Starts at <paramref name="initialCount"/> items, whose zeta is shared between workers.</summary>
    public ZipfianGenerator(long initialCount)
    {
        _count = Math.Max(initialCount, 1);
        _zeta = ZipfianZeta.Of(_count);
        _eta = Eta(_count, _zeta);
    }

    /// <summary>A rank in [0, <paramref name="count"/>).</summary>
    public long NextRank(ref SplitMix64 random, long count)
    {
        if (count != _count)
        {
            Resize(count);
        }

        double u = random.NextDouble();
        double uz = u * _zeta;
        if (uz < 1.0)
        {
            return 0;
        }

        if (uz < Zeta2 || count <= 2)
        {
            return Math.Min(1, count - 1);
        }

        long rank = (long)(count * Math.Pow((_eta * u) - _eta + 1.0, Alpha));
        return Math.Min(rank, count - 1);
    }

    private static double Eta(long count, double zeta) =>
        count <= 2 ? 0 : (1.0 - Math.Pow(2.0 / count, 1.0 - Theta)) / (1.0 - (Zeta2 / zeta));

    private void Resize(long count)
    {
        _zeta = count > _count ? ZipfianZeta.Extend(_count, _zeta, count) : ZipfianZeta.Of(count);
        _count = count;
        _eta = Eta(count, _zeta);
    }
}
