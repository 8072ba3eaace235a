namespace KeyValueStore.LoadTest.Measurement;

/// <summary>The store's background work that ran beside an operation (<see cref="BackgroundMarks.Until"/>).</summary>
internal enum BesideWork
{
    /// <summary>No compaction pass and no checkpoint ran at any moment of the operation.</summary>
    Neither,

    /// <summary>A compaction pass ran at some moment of it, and no checkpoint.</summary>
    Compaction,

    /// <summary>A checkpoint ran at some moment of it.</summary>
    Checkpoint,
}
