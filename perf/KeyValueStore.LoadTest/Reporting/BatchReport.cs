namespace KeyValueStore.LoadTest.Reporting;

/// <summary>
/// The run phase's atomic batches, with --batch-size above 1: how many, how many writes they carried, both
/// per second, and the latency of a whole batch (the same as the "batch" row of the operations).
/// </summary>
/// <param name="BatchSize">Writes per batch: every batch holds exactly this many.</param>
/// <param name="Batches">Batches completed in the run phase.</param>
/// <param name="BatchesPerSecond"><paramref name="Batches"/> over the run's duration.</param>
/// <param name="Writes">Updates and inserts the batches carried: <paramref name="Batches"/> × <paramref name="BatchSize"/>.</param>
/// <param name="WritesPerSecond"><paramref name="Writes"/> over the run's duration.</param>
/// <param name="LatencyMicroseconds">From the start of a batch (its keys' locks with --verify, then encoding its values) to its acknowledgement.</param>
internal sealed record BatchReport(int BatchSize, long Batches, double BatchesPerSecond, long Writes, double WritesPerSecond, LatencyReport LatencyMicroseconds);
