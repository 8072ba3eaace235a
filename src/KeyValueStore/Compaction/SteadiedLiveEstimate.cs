using System;

namespace KeyValueStore.Compaction;

/// <summary>
/// Turns the live-byte estimates the passes sample one after another into the one the threshold follows: the median of
/// the last <see cref="EstimatesKept"/>, unless the newest differs from that median by more than
/// <see cref="ChangeFraction"/> of it, which is taken as the data changing and followed at once.
/// </summary>
/// <remarks>
/// Each estimate samples about a thousand records (<c>Engine.LiveBytesEstimator</c>), which gives the live share to a
/// few percent: over ten minutes of steady overwrites of the same 100,000 records, the estimates went from 89 to 112 MB
/// and back from one pass to the next. The threshold, the back-pressure bound and the disk-to-live ratio a user reads
/// all moved with them (docs/benchmarks.md, "A live estimate steadied over five passes"). The median of five ignores
/// two outliers and follows a lasting change in three passes; a change beyond the sampling's reach (a quarter) is real
/// (a load, a mass delete) and is followed at the pass that saw it.
/// Not thread-safe: the compactor records one pass at a time.
/// </remarks>
internal sealed class SteadiedLiveEstimate
{
    /// <summary>How many of the latest estimates the median is taken over.</summary>
    public const int EstimatesKept = 5;

    /// <summary>How far from the median (as a share of it) a new estimate must be to count as the data changing.</summary>
    public const double ChangeFraction = 0.25;

    private readonly long[] _kept = new long[EstimatesKept];
    private int _count;
    private int _next;

    /// <summary>Adds a pass's estimate and returns the estimate to follow now.</summary>
    /// <param name="estimate">The live bytes the pass's sample estimated.</param>
    public long Add(long estimate)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(estimate);
        if (_count > 0 && IsAChange(estimate, Median()))
        {
            _count = 0;
            _next = 0;
        }

        _kept[_next] = estimate;
        _next = (_next + 1) % EstimatesKept;
        _count = Math.Min(_count + 1, EstimatesKept);
        return Median();
    }

    private static bool IsAChange(long estimate, long median) => Math.Abs((double)estimate - median) > ChangeFraction * median;

    /// <summary>The median of the kept estimates; of an even count, the lower middle one (low is the safe side: compaction runs earlier).</summary>
    private long Median()
    {
        Span<long> sorted = stackalloc long[EstimatesKept];
        _kept.AsSpan(0, _count).CopyTo(sorted);
        sorted = sorted[.._count];
        sorted.Sort();
        return sorted[(_count - 1) / 2];
    }
}
