using KeyValueStore.Serialization;

namespace KeyValueStore.Tests.Serialization;

/// <summary>When compression attempts back off: after a run of values that did not shrink, until one does.</summary>
public class CompressionBackoffTests
{
    private const int Calls = 16_000;

    [Fact]
    public void EveryValueIsTried_Until64InARowDidNotShrink()
    {
        var backoff = new CompressionBackoff();
        for (int i = 0; i < CompressionBackoff.IncompressibleInARowToBackOff - 1; i++)
        {
            backoff.Record(shrank: false);
        }

        Assert.Equal(Calls, TriesIn(backoff, Calls));

        backoff.Record(shrank: false);

        Assert.True(backoff.IsBackedOff);
    }

    [Fact]
    public void WhileBackedOff_AboutOneValueInSixteenIsTried()
    {
        var backoff = BackedOff();

        // 1,000 expected; the binomial's standard deviation is about 31, so the bounds are 16 of them away.
        Assert.InRange(TriesIn(backoff, Calls), 500, 1_500);
    }

    [Fact]
    public void OneValueThatShrinks_EndsTheBackOff()
    {
        var backoff = BackedOff();

        backoff.Record(shrank: true);

        Assert.False(backoff.IsBackedOff);
        Assert.Equal(Calls, TriesIn(backoff, Calls));
    }

    [Fact]
    public void AValueThatShrinks_StartsTheRunAgain()
    {
        var backoff = new CompressionBackoff();
        for (int i = 0; i < CompressionBackoff.IncompressibleInARowToBackOff - 1; i++)
        {
            backoff.Record(shrank: false);
        }

        backoff.Record(shrank: true);
        for (int i = 0; i < CompressionBackoff.IncompressibleInARowToBackOff - 1; i++)
        {
            backoff.Record(shrank: false);
        }

        Assert.False(backoff.IsBackedOff);
    }

    private static CompressionBackoff BackedOff()
    {
        var backoff = new CompressionBackoff();
        for (int i = 0; i < CompressionBackoff.IncompressibleInARowToBackOff; i++)
        {
            backoff.Record(shrank: false);
        }

        Assert.True(backoff.IsBackedOff);
        return backoff;
    }

    private static int TriesIn(CompressionBackoff backoff, int calls)
    {
        int tries = 0;
        for (int i = 0; i < calls; i++)
        {
            tries += backoff.ShouldTry() ? 1 : 0;
        }

        return tries;
    }
}
