namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>What <see cref="FaultyBackend"/> does wrong, once.</summary>
public enum Fault
{
    /// <summary>One read returns the stored value with one byte flipped.</summary>
    CorruptRead,

    /// <summary>One read of a key that has a value reports "not found".</summary>
    MissingRead,

    /// <summary>One update, and every later one of the same key, is acknowledged but never written: reads of that key are stale.</summary>
    LostWrite,
}
