namespace KeyValueStore;

/// <summary>
/// Thrown when a key and value together do not fit in one page of the log. FASTER stores each record
/// contiguously inside a page, so a record can never be larger than a page. A <see cref="RecordSerializer{TKey, TValue}"/>
/// (and so a store over a server, which uses one) throws it for a value over its limit, reported as the page size.
/// </summary>
/// <remarks>Nothing is written; the store stays usable.</remarks>
public sealed class RecordTooLargeException : KeyValueStoreException
{
    internal RecordTooLargeException(long recordSizeBytes, long pageSizeBytes)
        : this(
            $"The record needs {recordSizeBytes} bytes in the log, but a log page holds {pageSizeBytes} bytes. "
            + $"Raise {nameof(MixedStorageKVStoreOptions)}.{nameof(MixedStorageKVStoreOptions.PageSizeBits)} "
            + "so that 2^PageSizeBits is at least the record size, or store a smaller key or value.",
            recordSizeBytes,
            pageSizeBytes)
    {
    }

    private RecordTooLargeException(string message, long recordSizeBytes, long pageSizeBytes)
        : base(message)
    {
        RecordSizeBytes = recordSizeBytes;
        PageSizeBytes = pageSizeBytes;
    }

    /// <summary>Gets the size the record would take in the log, header and alignment included.</summary>
    public long RecordSizeBytes { get; }

    /// <summary>Gets the size of one log page: the largest record the store takes.</summary>
    public long PageSizeBytes { get; }

    /// <summary>A value over a serializer's limit rather than over a page.</summary>
    internal static RecordTooLargeException OverValueLimit(long valueSizeBytes, long limitBytes) => new(
        $"The value takes {valueSizeBytes} bytes serialized, over the store's limit of {limitBytes} bytes. "
        + "Raise the MaxValueBytes option of the store (and the server's own limit with it), or store a smaller value.",
        valueSizeBytes,
        limitBytes);
}
