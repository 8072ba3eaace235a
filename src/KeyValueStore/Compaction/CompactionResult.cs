namespace KeyValueStore.Compaction;

/// <summary>What one compaction did.</summary>
/// <param name="Compacted">False when there was nothing to compact (an empty read-only region).</param>
/// <param name="LogBytesBefore">Bytes between the log's begin and tail addresses before compacting.</param>
/// <param name="LogBytesAfter">The same after compacting, live records copied to the tail included.</param>
/// <param name="DiskBytesFreed">Bytes of the segment files wholly below the new begin address, which truncation deletes; 0 for a caller-supplied store.</param>
internal readonly record struct CompactionResult(bool Compacted, long LogBytesBefore, long LogBytesAfter, long DiskBytesFreed);
