namespace KeyValueStore.Durability;

/// <summary>Damage found in the write-ahead log after its newest commit metadata, before deciding whether a crash left it.</summary>
/// <param name="EndLogAt">Where the log ends if the damage is a crash's torn flush.</param>
/// <param name="DamagedAt">
/// Where the damage is: the damaged entry, or, when FASTER's scan skipped entries (a header reading as zero), the end of
/// the last entry read before them.
/// </param>
/// <param name="EntryFailedChecksum">Whether <paramref name="DamagedAt"/> is an entry that failed its checksum, whose bytes can be examined.</param>
internal readonly record struct WalDamage(long EndLogAt, long DamagedAt, bool EntryFailedChecksum)
{
    /// <summary>Damage to the entry at <paramref name="address"/>, where the log would end.</summary>
    public static WalDamage Entry(long address) => new(address, address, EntryFailedChecksum: true);
}
