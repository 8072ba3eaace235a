namespace KeyValueStore.LoadTest.Workloads;

/// <summary>What the bytes of a value after its record id and version are (--value-fill).</summary>
internal enum ValueFill
{
    /// <summary>Pseudo-random bytes: nothing for a store's compression to find.</summary>
    Random,

    /// <summary>
    /// Each pseudo-random 8-byte word written four times in a row, so that LZ4 finds a repeat in three words of four
    /// (LZ4 shrinks a 1 KB value to 398 bytes; a random one to 1,023).
    /// </summary>
    Compressible,
}
