using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Durability;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// A file created or renamed survives a power cut only once its directory is flushed. These tests watch the store's
/// directory flushes (through <see cref="StoreSettings.Directories"/>) and check that each one happens before the store
/// relies on the entry: the manifest and checkpoint record after their rename, a checkpoint's folders before the record
/// names them, a write-ahead log segment before a commit in it is acknowledged.
/// </summary>
public class DirectoryFlushTests
{
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task CreatingADurableStore_FlushesItsDirectory_AfterTheManifestAndRecordAreInPlace(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        var flushes = new WatchedDirectories();
        var layout = new LogFileLayout(temp.Path, "store");

        await using (Open(temp.Path, mode, flushes))
        {
            Flush[] ofStore = flushes.Of(temp.Path);
            Assert.Contains(ofStore, flush => flush.Files.Contains(layout.ManifestPath));
            Assert.Contains(ofStore, flush => flush.Files.Contains(layout.CheckpointRecordPath));
        }
    }

    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task ACheckpoint_FlushesItsFolder_BeforeTheRecordNamesIt_AndTheRecordsDirectoryAfter(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        var flushes = new WatchedDirectories();
        var layout = new LogFileLayout(temp.Path, "store");

        await using var store = Open(temp.Path, mode, flushes);
        await store.UpsertAsync(Key(1), Value(1, 1));
        flushes.Clear();

        await store.CheckpointAsync();

        Guid token = CheckpointRecord.ReadIfExists(layout.CheckpointRecordPath)!.Token!.Value;
        string folder = Path.GetDirectoryName(CheckpointInspector.MetadataPath(layout, token))!;
        int folderFlush = flushes.IndexOf(folder);
        Assert.True(folderFlush >= 0, $"the checkpoint's folder '{folder}' was never flushed");
        Assert.NotEqual(token, flushes.All[folderFlush].RecordedToken);

        int recordFlush = flushes.All.ToList().FindIndex(folderFlush, flush => flush.Directory == temp.Path && flush.RecordedToken == token);
        Assert.True(recordFlush > folderFlush, "the store's directory was not flushed after the record named the new checkpoint");
    }

    [Fact]
    public async Task ACommitModeWrite_IsAcknowledged_OnlyAfterItsLogSegmentsDirectoryIsFlushed()
    {
        using var temp = new TempDirectory();
        var flushes = new WatchedDirectories();
        var layout = new LogFileLayout(temp.Path, "store");

        await using var store = Open(temp.Path, DurabilityMode.Commit, flushes);
        await store.UpsertAsync(Key(1), Value(1, 1));

        Flush[] ofLog = flushes.Of(layout.WriteAheadLogDirectory);
        Assert.Contains(ofLog, flush => flush.Files.Any(file => Path.GetFileName(file).StartsWith(WriteAheadLog.SegmentBaseName + ".", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task AFailedDirectoryFlush_UnderTheWriteAheadLog_FaultsTheWrite_InsteadOfAcknowledgingIt()
    {
        using var temp = new TempDirectory();
        var layout = new LogFileLayout(temp.Path, "store");
        var flushes = new WatchedDirectories { Failing = directory => directory == layout.WriteAheadLogDirectory };

        await using var store = Open(temp.Path, DurabilityMode.Commit, flushes);

        await Assert.ThrowsAsync<StoreFaultedException>(async () => await store.UpsertAsync(Key(1), Value(1, 1)));
    }

    private static FasterRecordStore Open(string directory, DurabilityMode mode, DirectoryDurability directories) =>
        StoreOpener.Open(StoreSettingsValidator.Validate(Options(directory, mode)) with { Directories = directories }, NullLogger.Instance);

    private sealed record Flush(string Directory, string[] Files, Guid? RecordedToken);

    /// <summary>Flushes for real, and records each flush with the directory's files and the checkpoint record's token at that moment.</summary>
    private sealed class WatchedDirectories : DirectoryDurability
    {
        private readonly List<Flush> _flushes = [];

        public Func<string, bool> Failing { get; init; } = _ => false;

        public IReadOnlyList<Flush> All
        {
            get
            {
                lock (_flushes)
                {
                    return [.. _flushes];
                }
            }
        }

        public override void Flush(string directory)
        {
            string full = Path.GetFullPath(directory).TrimEnd(Path.DirectorySeparatorChar);
            if (Failing(full))
            {
                throw new IOException($"injected: the directory '{full}' could not be flushed");
            }

            base.Flush(full);
            string[] files = System.IO.Directory.Exists(full) ? System.IO.Directory.GetFileSystemEntries(full) : [];
            string? record = files.FirstOrDefault(file => file.EndsWith(".checkpoint.json", StringComparison.Ordinal));
            Guid? token = record is null ? null : CheckpointRecord.ReadIfExists(record)?.Token;
            token ??= RecordTokenBeside(full);
            lock (_flushes)
            {
                _flushes.Add(new Flush(full, files, token));
            }
        }

        public Flush[] Of(string directory) => All.Where(flush => flush.Directory == directory).ToArray();

        public int IndexOf(string directory) => All.ToList().FindIndex(flush => flush.Directory == directory);

        public void Clear()
        {
            lock (_flushes)
            {
                _flushes.Clear();
            }
        }

        // A flush of a folder inside the store's directory records the token the store's record names at that moment.
        private static Guid? RecordTokenBeside(string directory)
        {
            for (string? current = directory; current is not null; current = Path.GetDirectoryName(current))
            {
                string? record = System.IO.Directory.Exists(current)
                    ? System.IO.Directory.EnumerateFiles(current, "*.checkpoint.json").FirstOrDefault()
                    : null;
                if (record is not null)
                {
                    return CheckpointRecord.ReadIfExists(record)?.Token;
                }
            }

            return null;
        }
    }
}
