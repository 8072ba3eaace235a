namespace KeyValueStore;

/// <summary>
/// Thrown by a read when <see cref="MixedStorageKVStoreOptions.ValueChecksums"/> is on and the stored value does not match
/// the checksum written with it: the bytes were damaged after they were written. No value is returned.
/// </summary>
public sealed class ValueChecksumMismatchException : KeyValueStoreException
{
    internal ValueChecksumMismatchException(long logAddress, string segmentFile, long offsetInSegment)
        : base($"The value stored at log address {logAddress} (segment file '{segmentFile}', offset {offsetInSegment}) does not match its checksum, "
            + "so the bytes on disk or in memory were damaged. The value was not returned. Write the key again to replace it, or restore the store from a backup.")
    {
        LogAddress = logAddress;
        SegmentFile = segmentFile;
        OffsetInSegment = offsetInSegment;
    }

    /// <summary>Gets FASTER's logical address of the damaged record.</summary>
    public long LogAddress { get; }

    /// <summary>Gets the segment file that holds (or, while the record is still in memory, will hold) the record.</summary>
    public string SegmentFile { get; }

    /// <summary>Gets the record's offset within <see cref="SegmentFile"/>.</summary>
    public long OffsetInSegment { get; }
}
