using System;

namespace KeyValueStore;

/// <summary>
/// Thrown by <see cref="IMixedStorageKVStore{TKey, TValue}.CompactAsync"/> when the storage engine (FASTER) failed while
/// a compaction copied or measured records, for a reason other than a failed disk (that is
/// <see cref="StoreFaultedException"/>).
/// </summary>
/// <remarks>
/// A compaction moves the log's begin address only past records it has copied, so a failed one loses nothing: the
/// records it had not moved are still where they were, and the store stays usable. The inner exception is the engine's.
/// </remarks>
public sealed class CompactionFailedException : KeyValueStoreException
{
    internal CompactionFailedException(Exception innerException)
        : base($"A log compaction failed inside the storage engine ({innerException.Message}). Nothing was lost: the records it had not "
            + "moved are still where they were, and the store stays usable. The next compaction tries again; if this keeps happening, "
            + "report it with this exception's inner exception.", innerException)
    {
    }
}
