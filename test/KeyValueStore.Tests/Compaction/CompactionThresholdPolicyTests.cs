using System;
using KeyValueStore.Compaction;

namespace KeyValueStore.Tests.Compaction;

public class CompactionThresholdPolicyTests
{
    [Fact]
    public void BelowThreshold_Skips_AtOrAbove_Compacts()
    {
        var policy = new CompactionThresholdPolicy(100);

        Assert.False(policy.ShouldCompact(99));
        Assert.True(policy.ShouldCompact(100));
        Assert.True(policy.ShouldCompact(1_000));
        Assert.Null(policy.LiveBytesEstimate);
    }

    [Fact]
    public void APass_SetsTheThreshold_ToTwiceTheLiveBytesItEstimated()
    {
        var policy = new CompactionThresholdPolicy(100);

        // 300 bytes copied out of the compacted part, 200 bytes of log it did not reach: at most 500 live bytes.
        Assert.Equal(1_000, policy.RecordPass(copiedBytes: 300, uncompactedBytes: 200));

        Assert.Equal(500, policy.LiveBytesEstimate);
        Assert.Equal(CompactionThresholdPolicy.TargetLogBytesPerLiveByte * 500, policy.ThresholdBytes);
        Assert.False(policy.ShouldCompact(999));
        Assert.True(policy.ShouldCompact(1_000));
    }

    [Fact]
    public void PassesInARow_OverTheSameLiveData_KeepTheThreshold_InsteadOfRaisingIt()
    {
        var policy = new CompactionThresholdPolicy(100);
        policy.RecordPass(copiedBytes: 400, uncompactedBytes: 100);

        for (int pass = 0; pass < 20; pass++)
        {
            Assert.True(policy.ShouldCompact(1_000));
            Assert.Null(policy.RecordPass(copiedBytes: 400, uncompactedBytes: 100));
        }

        Assert.Equal(1_000, policy.ThresholdBytes);
    }

    [Fact]
    public void TheThreshold_FollowsTheLiveData_DownToTheMinimum()
    {
        var policy = new CompactionThresholdPolicy(100);
        policy.RecordPass(copiedBytes: 5_000, uncompactedBytes: 0);

        Assert.Equal(4_000, policy.RecordPass(copiedBytes: 2_000, uncompactedBytes: 0));
        Assert.Equal(100, policy.RecordPass(copiedBytes: 10, uncompactedBytes: 0));
        Assert.Equal(10, policy.LiveBytesEstimate);
    }

    [Fact]
    public void Threshold_SaturatesInsteadOfOverflowing()
    {
        var policy = new CompactionThresholdPolicy(100);

        policy.RecordPass(copiedBytes: long.MaxValue - 10, uncompactedBytes: 100);

        Assert.Equal(long.MaxValue, policy.LiveBytesEstimate);
        Assert.Equal(long.MaxValue, policy.ThresholdBytes);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public void NonPositiveThreshold_IsRejected(long threshold) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new CompactionThresholdPolicy(threshold));
}
