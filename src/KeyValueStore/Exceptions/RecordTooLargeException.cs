namespace KeyValueStore;

/// <summary>
/// Thrown when a key and value together do not fit in one page of the log. FASTER stores each record
/// contiguously inside a page, so a record can never be larger than a page.
/// </summary>
/// <remarks>Nothing is written; the store stays usable.</remarks>
public sealed class RecordTooLargeException : KeyValueStoreException
{
    internal RecordTooLargeException(long recordSizeBytes, long pageSizeBytes)
        : base($"The record needs {recordSizeBytes} bytes in the log, but a log page holds {pageSizeBytes} bytes. "
            + $"Raise {nameof(MixedStorageKVStoreOptions)}.{nameof(MixedStorageKVStoreOptions.PageSizeBits)} "
            + "so that 2^PageSizeBits is at least the record size, or store a smaller key or value.")
    {
        RecordSizeBytes = recordSizeBytes;
        PageSizeBytes = pageSizeBytes;
    }

    /// <summary>Gets the size the record would take in the log, header and alignment included.</summary>
    public long RecordSizeBytes { get; }

    /// <summary>Gets the size of one log page.</summary>
    public long PageSizeBytes { get; }
}
