namespace KeyValueStore;

/// <summary>What one on-demand compaction did.</summary>
/// <param name="Compacted">False when there was nothing to compact (no part of the log was read-only yet).</param>
/// <param name="LogBytesBefore">Bytes between the log's begin and tail before compacting.</param>
/// <param name="LogBytesAfter">The same after compacting, live records copied to the tail included.</param>
/// <param name="DiskBytesFreed">Bytes of segment files the compaction emptied, which are deleted or kept a while for reuse by new segments; 0 on a caller-supplied FasterKV.</param>
public readonly record struct CompactionSummary(bool Compacted, long LogBytesBefore, long LogBytesAfter, long DiskBytesFreed);
