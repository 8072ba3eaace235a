using System;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Engine;

/// <summary>
/// Runs a durable store's checkpoints once per process, in the background, on a small throwaway store
/// written to while they run, before the first real store's writers could wait on code that runs for the first time.
/// </summary>
/// <remarks>
/// Why: the first checkpoints in a process run FASTER's checkpoint code, and the code a session runs as it passes
/// through a checkpoint's phases, for the first time; a second store in the same process does not pay again, so the
/// cost is the process's. Measured in the paced load test in Checkpoint mode, every update over 4 ms beside a
/// checkpoint fell in the run's first one: the first index checkpoint's start held writers, the first log checkpoint's
/// start held them 4 ms, and upserts stalled 5-6 ms inside FASTER while it ran (docs/benchmarks.md, "The first
/// checkpoints of a process, run on a throwaway store"). The throwaway store is a real one, opened by
/// <see cref="StoreOpener"/> in Checkpoint mode, so that the very code (and the same generic instances) a real
/// checkpoint runs is what is warmed: an index checkpoint, then a log checkpoint, each with writes and reads going on.
/// <para>
/// It runs beside the real store's open, not inside it: FASTER's <c>CompleteCheckpointAsync</c> spins on its thread
/// while nothing is left to await, and a checkpoint's page writes need a thread-pool thread of their own, so a warm-up
/// the open waited for took a second, not 0.2 s, in 4 of 10 processes that opened their store synchronously from a
/// thread-pool thread on two cores (until the pool added a thread). It lives in a folder of the temporary directory
/// named with the process's id, deleted after (a later warm-up deletes those of processes that are gone), so the
/// store's own directory never holds it; it logs nothing, and its instruments go to a meter no host listens to. It
/// only moves a cost: any failure is ignored, and the first real checkpoints then pay as before.
/// </para>
/// </remarks>
internal static class CheckpointWarmUp
{
    private const string FolderPrefix = "kvstore-checkpoint-warm-up.";
    private const int Keys = 64;

    // A bound on the rounds of writes beside one checkpoint (about 9 KB each), in case it never completes.
    private const int MaxRounds = 1000;

    private static int _started;

    /// <summary>Starts the warm-up in the background, unless this process already did.</summary>
    public static void StartOnce()
    {
        if (Interlocked.Exchange(ref _started, 1) == 0)
        {
            _ = Task.Run(() => RunAsync(Path.GetTempPath()));
        }
    }

    /// <summary>
    /// Opens a throwaway store in a new folder of <paramref name="parent"/>, takes its checkpoints with writes going on,
    /// closes it and deletes the folder, and the folders of earlier warm-ups whose processes are gone; returns whether
    /// it all completed.
    /// </summary>
    public static async Task<bool> RunAsync(string parent)
    {
        DeleteLeftOvers(parent);
        string folder = Path.Combine(parent, $"{FolderPrefix}{Environment.ProcessId}.{Guid.NewGuid():N}");
        try
        {
            using var meters = new UnlistenedMeterFactory();
            FasterRecordStore store = await StoreOpener.OpenAsync(StoreOpener.ThrowawayCheckpointedStore(folder, meters), NullLogger.Instance).ConfigureAwait(false);
            await using (store.ConfigureAwait(false))
            {
                await CheckpointWhileWritingAsync(store).ConfigureAwait(false);
                await CheckpointWhileWritingAsync(store).ConfigureAwait(false);
            }

            return true;
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

    /// <summary>Takes a checkpoint and writes, reads and deletes keys until it completes, so that sessions pass through its phases.</summary>
    private static async Task CheckpointWhileWritingAsync(FasterRecordStore store)
    {
        byte[] value = new byte[100];
        await WriteAsync(store, value, round: 0).ConfigureAwait(false);
        Task checkpoint = store.CheckpointAsync();
        for (int round = 1; !checkpoint.IsCompleted && round <= MaxRounds; round++)
        {
            await WriteAsync(store, value, round).ConfigureAwait(false);

            // Writes that complete at once would keep this thread from the checkpoint's own work on two cores; the
            // writes go on until it completes, as sessions then step FASTER's checkpoint through its phases.
            await Task.Yield();
        }

        await checkpoint.ConfigureAwait(false);
    }

    private static async Task WriteAsync(FasterRecordStore store, byte[] value, int round)
    {
        byte[] key = new byte[sizeof(int)];
        for (int i = 0; i < Keys; i++)
        {
            BitConverter.TryWriteBytes(key, i);
            value[0] = (byte)round;
            await store.UpsertAsync(key, value).ConfigureAwait(false);
            (bool found, PooledBuffer read) = await store.ReadAsync(key).ConfigureAwait(false);
            if (found)
            {
                read.Return();
            }

            if (i % 8 == 0)
            {
                await store.DeleteAsync(key).ConfigureAwait(false);
            }
        }
    }

    private static void DeleteLeftOvers(string parent)
    {
        try
        {
            foreach (string leftOver in Directory.EnumerateDirectories(parent, FolderPrefix + "*"))
            {
                if (!IsOfALiveProcess(leftOver))
                {
                    DeleteQuietly(leftOver);
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Not listed: the next warm-up tries again.
        }
    }

    /// <summary>Whether a warm-up folder's name holds the id of a process still running (which may be warming up in it).</summary>
    private static bool IsOfALiveProcess(string folder)
    {
        string[] parts = Path.GetFileName(folder)[FolderPrefix.Length..].Split('.');
        if (!int.TryParse(parts[0], out int processId))
        {
            return false;
        }

        try
        {
            using var process = Process.GetProcessById(processId);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
        catch (InvalidOperationException)
        {
            return false;
        }
    }

    private static void DeleteQuietly(string folder)
    {
        try
        {
            Directory.Delete(folder, recursive: true);
        }
        catch (DirectoryNotFoundException)
        {
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // A few megabytes left in the temporary directory; nothing reads it, and the next warm-up deletes it.
        }
    }

    /// <summary>
    /// Gives the throwaway store a meter named apart from the stores' own, so that no host's listener sees it: not even
    /// one that listens to every meter whose name starts with the stores' (an OpenTelemetry wildcard such as
    /// <c>KeyValueStore*</c>).
    /// </summary>
    private sealed class UnlistenedMeterFactory : IMeterFactory
    {
        private readonly Meter _meter = new("CheckpointWarmUp.ThrowawayStore");

        public Meter Create(MeterOptions options) => _meter;

        public void Dispose() => _meter.Dispose();
    }
}
