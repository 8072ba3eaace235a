using System.Collections.Generic;

namespace KeyValueStore.Engine;

/// <summary>What one window of a live estimate's sample read: the bytes of log it covered, and its records that are not deletes.</summary>
/// <param name="Bytes">The bytes of log covered: up to the end of the last record read, or the window's end once it ran out.</param>
/// <param name="Records">The records found that a locating read may show live.</param>
internal readonly record struct SampledWindow(long Bytes, List<SampledRecord> Records);

/// <summary>A record a window found: its key, where it lies, and its aligned size in the log.</summary>
internal readonly record struct SampledRecord(byte[] Key, RecordLocation Location, long Size);
