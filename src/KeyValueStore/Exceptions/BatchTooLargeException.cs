namespace KeyValueStore;

/// <summary>Thrown when a batch holds more writes, or more bytes, than one atomic batch may.</summary>
/// <remarks>Nothing of the batch is written; the store stays usable.</remarks>
public sealed class BatchTooLargeException : KeyValueStoreException
{
    /// <summary>The most writes one batch may hold, as in the LLFIO store this library measures itself against.</summary>
    public const int MaxWrites = 65_535;

    /// <summary>
    /// The most bytes one batch's keys and values may add up to (with 9 bytes per write of framing): 1 GiB. A batch is
    /// one transaction of the write-ahead log in <see cref="DurabilityMode.Commit"/> mode, encoded in one buffer; the
    /// same limit holds in every mode, so that a batch that works in one mode works in all.
    /// </summary>
    public const long MaxEncodedBytes = 1L << 30;

    internal BatchTooLargeException(int writes)
        : base($"The batch holds {writes} writes, but one atomic batch may hold at most {MaxWrites}. "
            + "Split it into batches of at most that many writes; each of them is then atomic on its own.")
    {
        Writes = writes;
    }

    internal BatchTooLargeException(int writes, long encodedBytes)
        : base($"The batch's {writes} writes add up to {encodedBytes} bytes, but one atomic batch may hold at most {MaxEncodedBytes} bytes. "
            + "Split it into smaller batches; each of them is then atomic on its own. Nothing of this batch was written.")
    {
        Writes = writes;
        EncodedBytes = encodedBytes;
    }

    /// <summary>Gets the number of writes the rejected batch held.</summary>
    public int Writes { get; }

    /// <summary>Gets the bytes the rejected batch encodes to, or 0 when it was refused for its number of writes.</summary>
    public long EncodedBytes { get; }
}
