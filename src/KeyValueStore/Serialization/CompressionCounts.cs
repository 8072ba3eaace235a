using KeyValueStore.Concurrency;

namespace KeyValueStore.Serialization;

/// <summary>
/// Counts what <see cref="ValueCodec{TValue}"/> did with each value at or above its threshold, for the store's metrics:
/// compressed, incompressible (tried, stored plain), or not tried (attempts backed off, <see cref="CompressionBackoff"/>).
/// </summary>
/// <remarks>
/// Counted per processor (<see cref="PerProcessorCount"/>): every such write counts, and one shared counter would be a
/// cache line travelling between cores at each. Read only when a metrics listener collects.
/// </remarks>
internal sealed class CompressionCounts
{
    private readonly PerProcessorCount _compressed = new();
    private readonly PerProcessorCount _incompressible = new();
    private readonly PerProcessorCount _notTried = new();

    public void CountCompressed() => _compressed.Increment();

    public void CountIncompressible() => _incompressible.Increment();

    public void CountNotTried() => _notTried.Increment();

    /// <summary>The counts so far (each summed over the processors' cells, so a write in progress may show in one and not yet another).</summary>
    public ValueCompressionTally Tally() => new(_compressed.Sum(), _incompressible.Sum(), _notTried.Sum());
}
