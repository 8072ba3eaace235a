using System;
using System.IO;
using System.Threading;
using FASTER.core;

namespace KeyValueStore.Durability;

/// <summary>
/// Runs FASTER's index checkpoint once per process, on a throwaway store of a few kilobytes, before the first durable
/// store's writers could be held for a real one.
/// </summary>
/// <remarks>
/// Why: writers are held while an index checkpoint starts (<see cref="IndexCheckpoints"/>), and the first start in a
/// process runs FASTER's code for it for the first time: measured alone, 4 ms after a log checkpoint and 11 ms before any
/// (against 0.2-0.3 ms after; a second store in the same process starts its first in 0.3 ms, so the cost is the
/// process's, not the store's), and 6 ms inside the load test, where it made Checkpoint mode's update p99.9 beside a
/// checkpoint (docs/benchmarks.md, "The first index checkpoint's start, warmed before it is needed"). The throwaway
/// store lives in a folder of its own in the store's directory, deleted after; it takes about 25 ms, once, while the
/// store opens. It only moves a cost: any failure is ignored, and the first real index checkpoint then pays it as before.
/// </remarks>
internal static class IndexCheckpointWarmUp
{
    private const string FolderPrefix = ".index-checkpoint-warm-up.";

    private static int _done;

    /// <summary>Warms the index checkpoint's code in <paramref name="directory"/>, unless this process already did.</summary>
    public static void RunOnce(string directory)
    {
        if (Interlocked.Exchange(ref _done, 1) == 0)
        {
            Run(directory);
        }
    }

    /// <summary>
    /// Takes one index checkpoint of a throwaway store in a new folder of <paramref name="directory"/>, then deletes the
    /// folder, and any an earlier warm-up left there (a process that died while it ran: the directory's lock, held by
    /// the store opening, keeps every other process out); returns whether the checkpoint completed.
    /// </summary>
    public static bool Run(string directory)
    {
        DeleteLeftOvers(directory);
        string folder = Path.Combine(directory, FolderPrefix + Guid.NewGuid().ToString("N"));
        try
        {
            using IDevice log = Devices.CreateLogDevice(Path.Combine(folder, "log"), deleteOnClose: true);
            using var store = new FasterKV<SpanByte, SpanByte>(
                1 << 10,
                new LogSettings { LogDevice = log, PageSizeBits = 12, MemorySizeBits = 13 },
                new CheckpointSettings { CheckpointDir = Path.Combine(folder, "checkpoints") });
            return store.TryInitiateIndexCheckpoint(out _)
                && store.CompleteCheckpointAsync().AsTask().Wait(TimeSpan.FromSeconds(10));
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            return false;
        }
        finally
        {
            DeleteQuietly(folder);
        }
    }

    private static void DeleteLeftOvers(string directory)
    {
        try
        {
            foreach (string leftOver in Directory.EnumerateDirectories(directory, FolderPrefix + "*"))
            {
                DeleteQuietly(leftOver);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Not listed: the next warm-up tries again.
        }
    }

    private static void DeleteQuietly(string folder)
    {
        try
        {
            Directory.Delete(folder, recursive: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // A few kilobytes left in a hidden folder; nothing reads it, and the next warm-up here deletes it.
        }
    }
}
