namespace KeyValueStore.Engine;

/// <summary>Where a read of one key in a session stands after FASTER was asked (<see cref="FasterRecordStore"/>'s reads).</summary>
internal enum ReadStep
{
    /// <summary>Answered: found, or absent with the log's begin address where it was when the read was issued.</summary>
    Done,

    /// <summary>Gone to the disk; the session's pending read finishes it.</summary>
    Pending,

    /// <summary>The value failed its checksum (already given back): the read ends in a checksum-mismatch error.</summary>
    SealBroken,

    /// <summary>Nothing found while a compaction moved the begin address: read again (a live record may have moved to the tail).</summary>
    ReadAgain,
}
