namespace KeyValueStore.Compaction;

/// <summary>What one compaction did.</summary>
/// <param name="Compacted">False when there was nothing to compact (an empty read-only region).</param>
/// <param name="LogBytesBefore">Bytes between the log's begin and tail addresses before compacting.</param>
/// <param name="LogBytesAfter">The same after compacting, live records copied to the tail included.</param>
/// <param name="DiskBytesFreed">Bytes of the segment files the compaction left wholly below the begin address, which truncation deletes or keeps a while for reuse (each file counted by the one compaction that passed its end); 0 for a caller-supplied store.</param>
/// <param name="CopiedBytes">The live bytes copied to the tail: the live data of the compacted part.</param>
/// <param name="UncompactedBytes">The bytes of the log the compaction did not reach, from its until address to the tail when it started.</param>
/// <param name="CompactedBytes">The bytes of log it compacted: from the begin address before it to its until address.</param>
internal readonly record struct CompactionResult(
    bool Compacted, long LogBytesBefore, long LogBytesAfter, long DiskBytesFreed, long CopiedBytes = 0, long UncompactedBytes = 0, long CompactedBytes = 0);
