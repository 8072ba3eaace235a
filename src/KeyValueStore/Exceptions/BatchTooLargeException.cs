namespace KeyValueStore;

/// <summary>Thrown when a batch holds more writes than one atomic batch may.</summary>
/// <remarks>Nothing of the batch is written; the store stays usable.</remarks>
public sealed class BatchTooLargeException : KeyValueStoreException
{
    /// <summary>The most writes one batch may hold, as in the LLFIO store this library measures itself against.</summary>
    public const int MaxWrites = 65_535;

    internal BatchTooLargeException(int writes)
        : base($"The batch holds {writes} writes, but one atomic batch may hold at most {MaxWrites}. "
            + "Split it into batches of at most that many writes; each of them is then atomic on its own.")
    {
        Writes = writes;
    }

    /// <summary>Gets the number of writes the rejected batch held.</summary>
    public int Writes { get; }
}
