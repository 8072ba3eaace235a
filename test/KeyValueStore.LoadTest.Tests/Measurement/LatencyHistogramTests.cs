using System;
using System.Linq;
using KeyValueStore.LoadTest.Measurement;

namespace KeyValueStore.LoadTest.Tests.Measurement;

public class LatencyHistogramTests
{
    [Fact]
    public void Quantiles_AreNeverBelowTheExactValue_AndAtMost1Over128Above()
    {
        var histogram = new LatencyHistogram();
        var random = new Random(7);
        long[] values = Enumerable.Range(0, 100_000).Select(_ => (long)Math.Exp(random.NextDouble() * 25)).ToArray();
        foreach (long value in values)
        {
            histogram.Record(value);
        }

        Array.Sort(values);
        foreach (double quantile in new[] { 0.0, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0 })
        {
            long exact = values[Math.Max(0, (int)Math.Ceiling(quantile * values.Length) - 1)];
            long reported = histogram.ValueAtQuantile(quantile);
            Assert.InRange(reported, exact, exact + (exact / 128));
        }

        Assert.Equal(values[^1], histogram.Max);
        Assert.Equal(values[0], histogram.Min);
        Assert.Equal(values.Length, histogram.Count);
    }

    [Fact]
    public void RecordingOneValueForABatch_IsRecordingItOncePerWrite()
    {
        var batched = new LatencyHistogram();
        var single = new LatencyHistogram();
        foreach ((long value, long count) in new[] { (5_000L, 100L), (40L, 3L), (123_456_789L, 100L), (7L, 0L) })
        {
            batched.Record(value, count);
            for (long i = 0; i < count; i++)
            {
                single.Record(value);
            }
        }

        Assert.Equal(203, batched.Count);
        Assert.Equal(single.Count, batched.Count);
        Assert.Equal(single.Sum, batched.Sum);
        Assert.Equal(single.Min, batched.Min); // 40: a count of 0 records nothing, not even a minimum.
        Assert.Equal(single.Max, batched.Max);
        foreach (double quantile in new[] { 0.0, 0.01, 0.5, 0.51, 0.99, 1.0 })
        {
            Assert.Equal(single.ValueAtQuantile(quantile), batched.ValueAtQuantile(quantile));
        }
    }

    [Fact]
    public void EveryValue_FallsInABucketWhoseUpperEndIsWithinTheBound()
    {
        foreach (long value in new long[] { 0, 1, 127, 128, 129, 255, 256, 1000, 123_456_789, long.MaxValue / 3, long.MaxValue })
        {
            int index = LatencyHistogram.IndexOf(value);
            long highest = LatencyHistogram.HighestIn(index);
            Assert.InRange(highest - value, 0, value / 128); // As a difference: value + value / 128 overflows near long.MaxValue.
            Assert.True(index == 0 || LatencyHistogram.HighestIn(index - 1) < value, $"value {value} belongs to an earlier bucket than {index}");
        }
    }

    [Fact]
    public void Add_MergesCountsAndExtremes()
    {
        var a = new LatencyHistogram();
        var b = new LatencyHistogram();
        a.Record(10);
        a.Record(20);
        b.Record(5);
        b.Record(1_000_000);

        a.Add(b);

        Assert.Equal(4, a.Count);
        Assert.Equal(5, a.Min);
        Assert.Equal(1_000_000, a.Max);
        Assert.Equal(20, a.ValueAtQuantile(0.75));
        Assert.Equal(1_000_000, a.ValueAtQuantile(1.0));
    }

    [Fact]
    public void AnEmptyHistogram_ReportsZero()
    {
        var histogram = new LatencyHistogram();

        Assert.Equal(0, histogram.ValueAtQuantile(0.99));
        Assert.Equal(0, histogram.Mean);
    }
}
