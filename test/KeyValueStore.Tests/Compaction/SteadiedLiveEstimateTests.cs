using System;
using KeyValueStore.Compaction;

namespace KeyValueStore.Tests.Compaction;

public class SteadiedLiveEstimateTests
{
    [Fact]
    public void TheFirstEstimate_IsFollowedAsItIs()
    {
        var estimates = new SteadiedLiveEstimate();

        Assert.Equal(1_000, estimates.Add(1_000));
    }

    [Fact]
    public void EstimatesThatSwingAroundTheSameData_AreSteadiedToTheirMedian()
    {
        var estimates = new SteadiedLiveEstimate();

        // The swing measured over ten minutes of the same 100,000 records: 89 to 112 MB from one pass to the next.
        Assert.Equal(100, estimates.Add(100));
        Assert.Equal(100, estimates.Add(112));
        Assert.Equal(100, estimates.Add(89));
        Assert.Equal(100, estimates.Add(105));
        Assert.Equal(100, estimates.Add(95));
        Assert.Equal(105, estimates.Add(110));
        Assert.Equal(105, estimates.Add(111));
        Assert.Equal(105, estimates.Add(90));
    }

    [Fact]
    public void OfAnEvenCount_TheLowerMiddleEstimate_IsFollowed()
    {
        var estimates = new SteadiedLiveEstimate();
        estimates.Add(100);

        Assert.Equal(100, estimates.Add(110));
        Assert.Equal(100, estimates.Add(90));
        Assert.Equal(100, estimates.Add(120));
    }

    [Theory]
    [InlineData(74)]
    [InlineData(126)]
    public void AChangeOfMoreThanAQuarter_IsFollowedAtOnce(long changed)
    {
        var estimates = new SteadiedLiveEstimate();
        for (int pass = 0; pass < SteadiedLiveEstimate.EstimatesKept; pass++)
        {
            estimates.Add(100);
        }

        Assert.Equal(changed, estimates.Add(changed));

        // The estimates before the change are forgotten: the next ones are steadied around the new data.
        Assert.Equal(changed, estimates.Add(changed + 1));
    }

    [Fact]
    public void AChangeOfAtMostAQuarter_IsSteadied_UntilMostOfTheLastEstimatesShowIt()
    {
        var estimates = new SteadiedLiveEstimate();
        for (int pass = 0; pass < SteadiedLiveEstimate.EstimatesKept; pass++)
        {
            estimates.Add(100);
        }

        Assert.Equal(100, estimates.Add(120));
        Assert.Equal(100, estimates.Add(120));
        Assert.Equal(120, estimates.Add(120));
    }

    [Fact]
    public void ANegativeEstimate_IsRejected() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new SteadiedLiveEstimate().Add(-1));
}
