namespace KeyValueStore.LoadTest.Reporting;

/// <summary>
/// Durable flushes during the run phase, for backends that count them (<see cref="Backends.IDurableFlushCounter"/>):
/// the flushes, the writes (updates, inserts and read-modify-writes) they made durable, and their ratio.
/// </summary>
/// <param name="Flushes">Flushes completed during the run phase: the backend's count after the run minus its count after the load.</param>
/// <param name="Writes">Writes completed during the run phase.</param>
/// <param name="FlushesPerWrite"><paramref name="Flushes"/> / <paramref name="Writes"/>; null when the run wrote nothing.</param>
/// <param name="Note">What one flush is for this backend.</param>
internal sealed record DurableFlushReport(long Flushes, long Writes, double? FlushesPerWrite, string Note);
