using System.Linq;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Tests.Workloads;

public class WorkloadTests
{
    [Fact]
    public void WorkloadW_IsParsed_WithTheZipfianDefault_OrTheDistributionGiven()
    {
        LoadTestOptions byDefault = OptionParser.Parse(["--workload", "w"]);
        LoadTestOptions uniform = OptionParser.Parse(["--workload", "W", "--distribution", "uniform"]);

        Assert.Same(Workload.W, byDefault.Workload);
        Assert.Equal(KeyDistribution.Zipfian, byDefault.Distribution);
        Assert.Same(Workload.W, uniform.Workload);
        Assert.Equal(KeyDistribution.Uniform, uniform.Distribution);
        Assert.False(Workload.W.IsYcsb);
        Assert.True(Workload.A.IsYcsb);
    }

    [Fact]
    public void WorkloadW_PicksAnUpdate_ForEveryDraw()
    {
        // The draws span [0, 1) evenly, and its two ends.
        double[] draws = Enumerable.Range(0, 10_000).Select(i => i / 10_000.0).Append(0.999999999999).ToArray();

        Assert.Equal([OperationType.Update], Workload.W.OperationTypes);
        Assert.All(draws, draw => Assert.Equal(OperationType.Update, Workload.W.Pick(draw)));
    }

    [Fact]
    public void WorkloadA_ForComparison_PicksReadsToo()
    {
        // The control for the test above: Pick does not answer "update" whatever the workload.
        Assert.Equal(OperationType.Read, Workload.A.Pick(0.25));
        Assert.Equal(OperationType.Update, Workload.A.Pick(0.75));
    }
}
