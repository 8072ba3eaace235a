using System;
using System.Collections.Generic;
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
    }

    [Fact]
    public void FiveCompactionsInARow_DoubleTheThreshold_AndTheCountStartsAgain()
    {
        var policy = new CompactionThresholdPolicy(100);
        var raises = new List<long?>();

        for (int i = 0; i < 10; i++)
        {
            Assert.True(policy.ShouldCompact(400));
            raises.Add(policy.RecordCompaction());
        }

        Assert.Equal(new long?[] { null, null, null, null, 200, null, null, null, null, 400 }, raises);
        Assert.Equal(400, policy.ThresholdBytes);
        Assert.True(policy.ShouldCompact(400));
        Assert.False(policy.ShouldCompact(399));
    }

    [Fact]
    public void ASkip_EndsTheRun_SoScatteredCompactionsNeverRaise()
    {
        var policy = new CompactionThresholdPolicy(100);

        for (int round = 0; round < 3; round++)
        {
            for (int i = 0; i < CompactionThresholdPolicy.CompactionsBeforeRaise - 1; i++)
            {
                Assert.True(policy.ShouldCompact(150));
                Assert.Null(policy.RecordCompaction());
            }

            Assert.False(policy.ShouldCompact(50));
        }

        Assert.Equal(100, policy.ThresholdBytes);
    }

    [Fact]
    public void Threshold_SaturatesInsteadOfOverflowing()
    {
        var policy = new CompactionThresholdPolicy(long.MaxValue - 1);

        for (int i = 0; i < CompactionThresholdPolicy.CompactionsBeforeRaise; i++)
        {
            policy.RecordCompaction();
        }

        Assert.Equal(long.MaxValue, policy.ThresholdBytes);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public void NonPositiveThreshold_IsRejected(long threshold) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new CompactionThresholdPolicy(threshold));
}
