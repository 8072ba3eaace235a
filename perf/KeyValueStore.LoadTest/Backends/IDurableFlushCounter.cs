namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// An optional capability of a backend: counting the flushes that make its writes durable, so the report can
/// show flushes per write. With one flush per write, durable throughput is bounded by the disk's sync rate;
/// a backend that makes many writes durable with one flush (group commit) is not.
/// </summary>
/// <remarks>
/// What a flush is differs between backends, and <see cref="FlushNote"/> says it. The count is what the backend
/// did, as it knows it (checkpoints completed, transactions committed), not a count of fsync calls observed
/// from outside.
/// </remarks>
internal interface IDurableFlushCounter
{
    /// <summary>
    /// Gets the durable flushes completed since the backend opened; null when this backend, as configured, does
    /// not count them (durability none makes nothing durable; SQLite with synchronous=NORMAL syncs only at its
    /// WAL checkpoints, which it does not report).
    /// </summary>
    long? DurableFlushes { get; }

    /// <summary>Gets one line for the report on what one flush is for this backend.</summary>
    string FlushNote { get; }
}
