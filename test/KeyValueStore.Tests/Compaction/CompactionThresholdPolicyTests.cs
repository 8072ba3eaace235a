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

        // 300 live bytes copied out of the compacted part; 200 bytes it did not reach, taken as live as its newest slice was (half).
        Assert.Equal(800, policy.RecordPass(copiedBytes: 300, uncompactedBytes: 200, newestLiveFraction: 0.5));

        Assert.Equal(400, policy.LiveBytesEstimate);
        Assert.Equal(CompactionThresholdPolicy.TargetLogBytesPerLiveByte * 400, policy.ThresholdBytes);
        Assert.False(policy.ShouldCompact(799));
        Assert.True(policy.ShouldCompact(800));
    }

    [Fact]
    public void WritersAreHeld_FromHalfAgainTheThreshold()
    {
        var policy = new CompactionThresholdPolicy(100);
        policy.RecordPass(copiedBytes: 500, uncompactedBytes: 0, newestLiveFraction: 1);

        Assert.Equal(1_500, policy.BackPressureBytes);
        Assert.False(policy.ShouldHoldWriters(1_499));
        Assert.True(policy.ShouldHoldWriters(1_500));
    }

    [Fact]
    public void AnEstimateTooLow_StillLeavesTheThresholdAQuarterAboveWhatThePassLeft()
    {
        var policy = new CompactionThresholdPolicy(100);

        // The newest slice held nothing live, so the 1,000 bytes not reached count for nothing: the estimate is 100. The
        // log the pass left (up to 1,100 bytes) must not reach the threshold at once, or passes would follow each other for nothing.
        Assert.Equal(1_375, policy.RecordPass(copiedBytes: 100, uncompactedBytes: 1_000, newestLiveFraction: 0));
        Assert.Equal(100, policy.LiveBytesEstimate);
    }

    [Fact]
    public void PassesInARow_OverTheSameLiveData_KeepTheThreshold_InsteadOfRaisingIt()
    {
        var policy = new CompactionThresholdPolicy(100);
        policy.RecordPass(copiedBytes: 400, uncompactedBytes: 100, newestLiveFraction: 1);

        for (int pass = 0; pass < 20; pass++)
        {
            Assert.True(policy.ShouldCompact(1_000));
            Assert.Null(policy.RecordPass(copiedBytes: 400, uncompactedBytes: 100, newestLiveFraction: 1));
        }

        Assert.Equal(1_000, policy.ThresholdBytes);
    }

    [Fact]
    public void TheThreshold_FollowsTheLiveData_DownToTheMinimum()
    {
        var policy = new CompactionThresholdPolicy(100);
        policy.RecordPass(copiedBytes: 5_000, uncompactedBytes: 0, newestLiveFraction: 1);

        Assert.Equal(4_000, policy.RecordPass(copiedBytes: 2_000, uncompactedBytes: 0, newestLiveFraction: 1));
        Assert.Equal(100, policy.RecordPass(copiedBytes: 10, uncompactedBytes: 0, newestLiveFraction: 1));
        Assert.Equal(10, policy.LiveBytesEstimate);
    }

    [Fact]
    public void BeforeTheFirstPass_APassTakesTheWholeReadOnlyRegion()
    {
        var policy = new CompactionThresholdPolicy(100);

        Assert.Equal(700, policy.PassBytes(logBytes: 1_000, readOnlyBytes: 700));
    }

    [Fact]
    public void APass_TakesAsMuchOfTheOldestLogAsGivesBackTheExcess_AtTheLiveFractionLastSeen()
    {
        var policy = new CompactionThresholdPolicy(100);

        // 250 of the 1,000 bytes compacted were live: a quarter. The threshold is 2 x (250 + 750 / 2) = 1,250.
        policy.RecordPass(copiedBytes: 250, uncompactedBytes: 750, newestLiveFraction: 0.5, compactedBytes: 1_000);
        Assert.Equal(1_250, policy.ThresholdBytes);
        Assert.Equal(0.25, policy.CompactedLiveFraction);

        // A log of 1,500 is 562 over three quarters of the threshold (938): at a quarter live, 749 bytes give that back.
        Assert.Equal(749, policy.PassBytes(logBytes: 1_500, readOnlyBytes: 1_200));

        // Never more than the read-only region.
        Assert.Equal(600, policy.PassBytes(logBytes: 1_500, readOnlyBytes: 600));
    }

    [Fact]
    public void WhenTheOldestLogWasAlmostAllLive_APassTakesTheWholeReadOnlyRegion()
    {
        var policy = new CompactionThresholdPolicy(100);
        policy.RecordPass(copiedBytes: 950, uncompactedBytes: 50, newestLiveFraction: 1, compactedBytes: 1_000);

        Assert.Equal(1_800, policy.PassBytes(logBytes: 3_000, readOnlyBytes: 1_800));
    }

    [Fact]
    public void Threshold_SaturatesInsteadOfOverflowing()
    {
        var policy = new CompactionThresholdPolicy(100);

        policy.RecordPass(copiedBytes: long.MaxValue - 10, uncompactedBytes: 100, newestLiveFraction: 1);

        Assert.Equal(long.MaxValue, policy.LiveBytesEstimate);
        Assert.Equal(long.MaxValue, policy.ThresholdBytes);
        Assert.Equal(long.MaxValue, policy.BackPressureBytes);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public void NonPositiveThreshold_IsRejected(long threshold) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new CompactionThresholdPolicy(threshold));
}
