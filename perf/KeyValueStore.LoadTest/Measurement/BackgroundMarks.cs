using KeyValueStore.Diagnostics;

namespace KeyValueStore.LoadTest.Measurement;

/// <summary>A store's compaction passes and checkpoints, read at one moment (<see cref="BackgroundWork"/>).</summary>
/// <param name="Compaction">The compaction passes.</param>
/// <param name="Checkpoint">The checkpoints; null for a store that takes none.</param>
internal readonly record struct BackgroundMarks(BackgroundWorkMark Compaction, BackgroundWorkMark? Checkpoint)
{
    /// <summary>
    /// What ran beside an operation taken between this mark and <paramref name="end"/>: a checkpoint, if one ran at any
    /// moment of it (a checkpoint holds writers, so it comes first); else a compaction pass; else neither.
    /// </summary>
    public BesideWork Until(BackgroundMarks end) =>
        Checkpoint is BackgroundWorkMark checkpoint && end.Checkpoint is BackgroundWorkMark checkpointEnd && checkpoint.OverlapsUntil(checkpointEnd) ? BesideWork.Checkpoint
        : Compaction.OverlapsUntil(end.Compaction) ? BesideWork.Compaction
        : BesideWork.Neither;
}
