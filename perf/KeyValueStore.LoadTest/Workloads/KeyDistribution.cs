namespace KeyValueStore.LoadTest.Workloads;

/// <summary>How a workload picks the key of its next operation among the keys written so far.</summary>
internal enum KeyDistribution
{
    /// <summary>Every key equally likely.</summary>
    Uniform,

    /// <summary>Zipfian with theta 0.99, the popular ranks scattered over the key space (see <see cref="ScrambledZipfianChooser"/>).</summary>
    Zipfian,

    /// <summary>Zipfian over recency: the most recently inserted keys are the most popular (see <see cref="LatestChooser"/>).</summary>
    Latest,
}
