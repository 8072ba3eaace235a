namespace KeyValueStore.Engine;

/// <summary>What a sample of a stretch of the log found: how many bytes of log it covered, and how many of them are live records.</summary>
/// <param name="SampledBytes">The bytes of log the sample covered, records of every kind and page padding included.</param>
/// <param name="LiveBytes">The bytes of the records among them that are still their key's latest live record.</param>
internal readonly record struct LiveBytesSample(long SampledBytes, long LiveBytes)
{
    /// <summary>Gets the live share of the bytes sampled; 1 when nothing was sampled, so that an empty sample never makes data look like garbage.</summary>
    public double LiveFraction => SampledBytes <= 0 ? 1 : System.Math.Clamp((double)LiveBytes / SampledBytes, 0, 1);
}
