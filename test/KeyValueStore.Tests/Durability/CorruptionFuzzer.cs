using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using Microsoft.Extensions.Logging.Abstractions;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// Damages one file of a closed (Checkpoint) or crashed (Commit) durable store per trial, then reopens it and reads
/// every key. A trial passes in exactly one of two ways: the open throws a <see cref="KeyValueStoreException"/>, or the
/// store opens and every key reads back as acknowledged, or throws <see cref="ValueChecksumMismatchException"/>. It fails
/// when a key is missing or wrong, when any other exception escapes (untyped-exception detection), or on a hang.
/// </summary>
/// <remarks>
/// One image per mode is built once; each trial copies it. Damage lands in the part of a file that holds data (up to
/// its last non-zero byte): preallocated segment files are mostly zeros, where damage changes nothing anyone reads.
/// </remarks>
internal sealed class CorruptionFuzzer : IDisposable
{
    /// <summary>How long a trial runs before it is waited for as possibly hung.</summary>
    public static readonly TimeSpan TrialLimit = TimeSpan.FromSeconds(30);

    /// <summary>
    /// How long a trial past <see cref="TrialLimit"/> may still take to finish before it is called hung. A trial that
    /// finishes in that time was slow (a loaded CI machine), not hung, and is judged by what it found.
    /// </summary>
    public static readonly TimeSpan HangLimit = TimeSpan.FromMinutes(3);

    private const int Keys = 3_000;
    private readonly string _root;
    private readonly string _image;
    private readonly DurabilityMode _mode;
    private readonly Dictionary<int, byte[]?> _acknowledged = [];
    private int _trials;

    private CorruptionFuzzer(string root, DurabilityMode mode)
    {
        _root = root;
        _image = Path.Combine(root, "image");
        _mode = mode;
    }

    public enum Damage
    {
        FlipBits,
        ZeroSector,
        Truncate,
        Delete,
    }

    /// <summary>Builds the image every trial starts from: keys written, some rewritten, some deleted, all acknowledged.</summary>
    public static async Task<CorruptionFuzzer> CreateAsync(DurabilityMode mode)
    {
        string root = Path.Combine(Path.GetTempPath(), "kvstore-fuzz", Guid.NewGuid().ToString("N"));
        var fuzzer = new CorruptionFuzzer(root, mode);
        await fuzzer.BuildImageAsync();

        // The undamaged image must open and hold everything, or every refusal below would prove nothing.
        string baseline = Path.Combine(root, "baseline");
        CopyAsCrashImage(fuzzer._image, baseline);
        string? problem = await fuzzer.OpenAndCheckAsync(baseline, "(none)");
        if (problem is not null)
        {
            throw new InvalidOperationException($"The undamaged {mode} image does not hold what was acknowledged: {problem}");
        }

        return fuzzer;
    }

    /// <summary>Runs one trial: copy the image, damage one file, reopen, read everything.</summary>
    /// <param name="random">Chooses the file, the damage and where it lands.</param>
    /// <param name="onlyGuaranteed">
    /// Leave out the one damage no store with single-write commits can tell from a crash: a whole sector zeroed in a
    /// write-ahead log segment, which in the last commit before the crash is exactly what a torn flush leaves
    /// (docs/durability.md, "Corruption fuzzing"). What CI asserts; the soak runs everything.
    /// </param>
    public async Task<TrialResult> RunTrialAsync(Random random, bool onlyGuaranteed)
    {
        // A directory of its own per trial: a slow trial's store, still open, shares no file with the next one.
        string trial = Path.Combine(_root, $"trial-{_trials++}");
        CopyAsCrashImage(_image, trial);
        string[] files = Directory.GetFiles(trial, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal).ToArray();
        string file = files[random.Next(files.Length)];
        var damage = (Damage)random.Next(4);
        string kind = KindOf(Path.GetRelativePath(trial, file));
        if (onlyGuaranteed && kind.Contains(".wal/log.", StringComparison.Ordinal) && damage == Damage.ZeroSector)
        {
            damage = Damage.Delete;
        }

        string what = Apply(file, damage, random);

        // Written before the open: if the open kills the process, this names the trial, and its files are still there.
        File.WriteAllText(Path.Combine(_root, "last-trial.txt"), $"{_mode}: {what}\n");

        Task<string?> check = Task.Run(() => OpenAndCheckAsync(trial, file));
        string slow = string.Empty;
        try
        {
            if (!await FinishesWithinAsync(check, TrialLimit))
            {
                var waited = System.Diagnostics.Stopwatch.StartNew();
                if (!await FinishesWithinAsync(check, HangLimit))
                {
                    return new TrialResult(kind, damage, Outcome.Failed, $"{what}: hung for {(TrialLimit + HangLimit).TotalSeconds:F0} s");
                }

                slow = $" (slow: {(TrialLimit + waited.Elapsed).TotalSeconds:F0} s)";
            }

            string? problem = await check;
            return new TrialResult(kind, damage, problem is null ? Outcome.Intact : Outcome.Failed, (problem is null ? what : $"{what}: {problem}") + slow);
        }
        catch (KeyValueStoreException e)
        {
            bool named = e.Message.Contains(file, StringComparison.Ordinal) || e.Message.Contains(Path.GetDirectoryName(file)!, StringComparison.Ordinal);
            return new TrialResult(kind, damage, named ? Outcome.Refused : Outcome.RefusedNamingAnotherFile, $"{what}: {e.GetType().Name}: {e.Message}{slow}");
        }
        catch (Exception e)
        {
            string where = string.Join(" < ", (e.StackTrace ?? string.Empty).Split('\n').Take(4).Select(line => line.Trim()));
            return new TrialResult(kind, damage, Outcome.Failed, $"{what}: untyped {e.GetType().Name} escaped: {e.Message} ({where}){slow}");
        }
        finally
        {
            if (check.IsCompleted)
            {
                DeleteTrial(trial);
            }
        }
    }

    /// <summary>Whether <paramref name="task"/> finishes, in success or failure, within <paramref name="limit"/>.</summary>
    private static async Task<bool> FinishesWithinAsync(Task task, TimeSpan limit) =>
        await Task.WhenAny(task, Task.Delay(limit)).ConfigureAwait(false) == task;

    /// <summary>Deletes a finished trial's files; a hung trial's stay, for a look at what hung.</summary>
    private static void DeleteTrial(string trial)
    {
        try
        {
            Directory.Delete(trial, recursive: true);
        }
        catch (IOException)
        {
        }
    }

    public void Dispose()
    {
        try
        {
            Directory.Delete(_root, recursive: true);
        }
        catch (DirectoryNotFoundException)
        {
        }
    }

    /// <summary>The file's kind, for the report: its name with numbers and checkpoint tokens taken out.</summary>
    private static string KindOf(string relativePath)
    {
        string[] parts = relativePath.Split(Path.DirectorySeparatorChar);
        if (parts[0].EndsWith(".checkpoints", StringComparison.Ordinal))
        {
            return "checkpoint " + parts[^1];
        }

        string name = string.Join('/', parts);
        int dot = name.LastIndexOf('.');
        return dot > 0 && name[(dot + 1)..].All(char.IsAsciiDigit) ? name[..dot] + ".N" : name;
    }

    private static string Apply(string file, Damage damage, Random random)
    {
        byte[] bytes = File.ReadAllBytes(file);
        int used = Math.Max(1, bytes.AsSpan().LastIndexOfAnyExcept((byte)0) + 1);
        string name = Path.GetFileName(file);
        if (bytes.Length == 0)
        {
            // An empty file (a write-ahead log's leftover segment, say) can only be deleted.
            damage = Damage.Delete;
        }

        switch (damage)
        {
            case Damage.FlipBits:
                int offset = random.Next(used);
                int bit = random.Next(8);
                bytes[offset] ^= (byte)(1 << bit);
                File.WriteAllBytes(file, bytes);
                return $"{name}: bit {bit} of byte {offset} flipped";
            case Damage.ZeroSector:
                int start = random.Next(used) & ~511;
                int length = Math.Min(512, bytes.Length - start);
                Array.Clear(bytes, start, length);
                File.WriteAllBytes(file, bytes);
                return $"{name}: {length} bytes zeroed at {start}";
            case Damage.Truncate:
                int keep = random.Next(used);
                using (var stream = new FileStream(file, FileMode.Open))
                {
                    stream.SetLength(keep);
                }

                return $"{name}: cut to {keep} bytes";
            default:
                File.Delete(file);
                return $"{name}: deleted";
        }
    }

    /// <summary>Opens the damaged copy and reads every key; returns what was wrong, or null.</summary>
    private async Task<string?> OpenAndCheckAsync(string directory, string damagedFile)
    {
        await using FasterRecordStore store = Open(directory);
        var wrong = new List<string>();
        foreach ((int key, byte[]? expected) in _acknowledged)
        {
            try
            {
                byte[]? actual = await ReadAsync(store, key);
                if (!(actual ?? []).AsSpan().SequenceEqual(expected ?? []) || (actual is null) != (expected is null))
                {
                    wrong.Add($"key {key}: {(actual is null ? "missing" : "a wrong value")}, {(expected is null ? "deleted" : "written")} before the damage");
                }
            }
            catch (ValueChecksumMismatchException)
            {
                // Reported per key: allowed.
            }
        }

        return wrong.Count == 0 ? null : $"the store opened with {wrong.Count} keys wrong ({string.Join("; ", wrong.Take(3))}), damage in {damagedFile}";
    }

    private MixedStorageKVStoreOptions Options(string directory)
    {
        MixedStorageKVStoreOptions options = DurableStores.Options(directory, _mode);
        options.ValueChecksums = true;
        return options;
    }

    /// <summary>Opens the store with index checkpoints for a log this small, so that their files are damaged too.</summary>
    private FasterRecordStore Open(string directory) =>
        StoreOpener.Open(StoreSettingsValidator.Validate(Options(directory)) with { MinReplayBytesForIndexCheckpoint = 64 << 10 }, NullLogger.Instance);

    private async Task BuildImageAsync()
    {
        string live = Path.Combine(_root, "live");
        var random = new Random(7);
        FasterRecordStore store = Open(live);
        try
        {
            for (int i = 0; i < Keys; i++)
            {
                byte[] value = Value(i, 1, random.Next(0, 600));
                await store.UpsertAsync(Key(i), value);
                _acknowledged[i] = value;
            }

            await store.CheckpointAsync();
            for (int i = 0; i < Keys; i += 7)
            {
                byte[] value = Value(i, 2, random.Next(0, 600));
                await store.UpsertAsync(Key(i), value);
                _acknowledged[i] = value;
            }

            for (int i = 3; i < Keys; i += 11)
            {
                await store.DeleteAsync(Key(i));
                _acknowledged[i] = null;
            }

            if (_mode == DurabilityMode.Commit)
            {
                // A crash image: the last writes live only in the write-ahead log, so its files matter.
                CopyAsCrashImage(live, _image);
            }
        }
        finally
        {
            await store.DisposeAsync();
        }

        if (_mode != DurabilityMode.Commit)
        {
            CopyAsCrashImage(live, _image);
        }
    }

    public enum Outcome
    {
        /// <summary>Opened, and every key read back as acknowledged (or its checksum failure was reported).</summary>
        Intact,

        /// <summary>The open threw a typed exception naming the damaged file or its directory.</summary>
        Refused,

        /// <summary>The open threw a typed exception naming another file.</summary>
        RefusedNamingAnotherFile,

        /// <summary>A key missing or wrong, an untyped exception, or a hang.</summary>
        Failed,
    }

    public sealed record TrialResult(string FileKind, Damage Damage, Outcome Outcome, string Detail);
}
