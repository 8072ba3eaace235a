using System;

namespace KeyValueStore.Diagnostics;

/// <summary>
/// What <see cref="StoreMetrics"/> observes of an open store, read when a listener collects: the engine supplies each
/// reading, so this layer knows nothing of FASTER or compaction.
/// </summary>
internal sealed record StoreGauges(
    Func<long> LogBytes,
    Func<long> DiskBytes,
    Func<long?> LiveBytes,
    Func<long> Compactions,
    Func<long> DiskBytesFreed,
    Func<TimeSpan> BackPressure,
    Func<long> SessionWaits,
    Func<long?> DurableFlushes);
