using System;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability.WriteAhead;

/// <summary>
/// <see cref="MixedStorageKVStoreOptions.WriteAheadLogDirectory"/>: a Commit-mode store's write-ahead log on a directory
/// of its own. Nothing acknowledged may be lost when the option is wrong, missing, changed or shared, and a log nothing
/// refers to any more is never replayed.
/// </summary>
public class WriteAheadLogDirectoryTests
{
    private const int Keys = 300;

    [Fact]
    public async Task ACommitStore_KeepsItsLogInItsOwnDirectory_AndRecoversEveryAcknowledgedWriteFromThere()
    {
        using var home = new TempDirectory();
        using var walHome = new TempDirectory();
        using var crash = new TempDirectory();
        using var walCrash = new TempDirectory();
        // No checkpoint since the store was created: every write is in the write-ahead log alone.
        await WriteThenCopyAsCrashAsync(home.Path, walHome.Path, version: 1, crash.Path, walCrash.Path);

        Assert.False(Directory.Exists(Path.Combine(home.Path, "store.wal")), "the log was written in the store's directory");
        string log = Assert.Single(Directory.GetDirectories(walHome.Path));
        Assert.Matches(@"^store\.[0-9a-f]{32}\.wal$", Path.GetFileName(log));
        StoreManifest manifest = StoreManifest.ReadIfExists(Path.Combine(home.Path, "store.manifest.json"))!;
        Assert.True(manifest.WriteAheadLogElsewhere);
        Assert.Equal(StoreManifest.WriteAheadLogElsewhereFormatVersion, manifest.FormatVersion);

        await using FasterRecordStore recovered = StoreFactory.Open(CommitOptions(crash.Path, walCrash.Path));
        await AssertEveryKeyAsync(recovered, version: 1);
    }

    [Fact]
    public async Task AStoreWhoseLogIsElsewhere_IsRefused_WithoutThatDirectory_AndNothingChanges()
    {
        using var home = new TempDirectory();
        using var walHome = new TempDirectory();
        using var otherWalHome = new TempDirectory();
        using var crash = new TempDirectory();
        using var walCrash = new TempDirectory();
        await WriteThenCopyAsCrashAsync(home.Path, walHome.Path, version: 1, crash.Path, walCrash.Path);

        var before = Snapshot(crash.Path);
        foreach (MixedStorageKVStoreOptions wrong in new[] { CommitOptions(crash.Path, null), CommitOptions(crash.Path, otherWalHome.Path), Options(crash.Path, DurabilityMode.Checkpoint) })
        {
            var error = Assert.Throws<StoreManifestMismatchException>(() => StoreFactory.Open(wrong));
            Assert.Equal(nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory), error.Setting);
            Assert.Contains(nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory), error.Message, StringComparison.Ordinal);
        }

        Assert.Equal(before, Snapshot(crash.Path));
        Assert.Empty(Directory.GetFileSystemEntries(otherWalHome.Path));
        await using FasterRecordStore recovered = StoreFactory.Open(CommitOptions(crash.Path, walCrash.Path));
        await AssertEveryKeyAsync(recovered, version: 1);
    }

    [Fact]
    public async Task AStoreWithItsLogInItsDirectory_IsRefused_ALogElsewhere_AndNothingChanges()
    {
        using var home = new TempDirectory();
        using var walHome = new TempDirectory();
        await using (FasterRecordStore store = StoreFactory.Open(CommitOptions(home.Path, null)))
        {
            await WriteAsync(store, version: 1);
        }

        var before = Snapshot(home.Path);
        var error = Assert.Throws<StoreManifestMismatchException>(() => StoreFactory.Open(CommitOptions(home.Path, walHome.Path)));

        Assert.Contains("Checkpoint", error.Message, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(home.Path));
        Assert.Empty(Directory.GetFileSystemEntries(walHome.Path));
        await using FasterRecordStore reopened = StoreFactory.Open(CommitOptions(home.Path, null));
        await AssertEveryKeyAsync(reopened, version: 1);
    }

    /// <summary>
    /// A store whose checkpoint holds a log in its own directory that is gone has lost acknowledged writes, and says so by
    /// that log's name, also when a leftover sits where a log started elsewhere would go; nothing is changed. The leftover
    /// once passed for the missing log: it was deleted, a new log started, and the error named the new one.
    /// </summary>
    [Fact]
    public async Task AStoreWhoseLogIsMissing_IsRefusedByThatLogsName_EvenWithALeftoverWhereANewLogWouldGo()
    {
        using var home = new TempDirectory();
        using var walHome = new TempDirectory();
        await using (FasterRecordStore store = StoreFactory.Open(CommitOptions(home.Path, null)))
        {
            await WriteAsync(store, version: 1);
        }

        string lostLog = Path.Combine(home.Path, "store.wal");
        Directory.Delete(lostLog, recursive: true);
        string id = StoreManifest.ReadIfExists(Path.Combine(home.Path, "store.manifest.json"))!.StoreId!;
        string leftover = Directory.CreateDirectory(Path.Combine(walHome.Path, $"store.{id}.wal")).FullName;
        await File.WriteAllTextAsync(Path.Combine(leftover, "commits"), "left by a crash");
        var before = Snapshot(home.Path);
        var leftoverBefore = Snapshot(walHome.Path);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(CommitOptions(home.Path, walHome.Path)));

        Assert.Equal(lostLog, error.FilePath);
        Assert.Equal(before, Snapshot(home.Path));
        Assert.Equal(leftoverBefore, Snapshot(walHome.Path));
    }

    [Fact]
    public async Task TwoStoresOfOnePrefix_ShareALogDirectory_AndEachRecoversItsOwnWrites()
    {
        using var first = new TempDirectory();
        using var second = new TempDirectory();
        using var walHome = new TempDirectory();
        using var firstCrash = new TempDirectory();
        using var secondCrash = new TempDirectory();
        using var walCrash = new TempDirectory();
        await using (FasterRecordStore a = StoreFactory.Open(CommitOptions(first.Path, walHome.Path)))
        await using (FasterRecordStore b = StoreFactory.Open(CommitOptions(second.Path, walHome.Path)))
        {
            await WriteAsync(a, version: 1);
            await WriteAsync(b, version: 2);
            CrashImage.Copy(first.Path, firstCrash.Path);
            CrashImage.Copy(second.Path, secondCrash.Path);
            CrashImage.Copy(walHome.Path, walCrash.Path);
        }

        Assert.Equal(2, Directory.GetDirectories(walCrash.Path).Length);
        await using FasterRecordStore recoveredA = StoreFactory.Open(CommitOptions(firstCrash.Path, walCrash.Path));
        await using FasterRecordStore recoveredB = StoreFactory.Open(CommitOptions(secondCrash.Path, walCrash.Path));
        await AssertEveryKeyAsync(recoveredA, version: 1);
        await AssertEveryKeyAsync(recoveredB, version: 2);
    }

    /// <summary>The way the option's documentation gives to move a log: out of the store's directory and back, through Checkpoint mode.</summary>
    [Fact]
    public async Task ALogMovedOutAndBack_ThroughCheckpointMode_LosesNoWrite()
    {
        using var home = new TempDirectory();
        using var walHome = new TempDirectory();
        await using (FasterRecordStore store = StoreFactory.Open(CommitOptions(home.Path, null)))
        {
            await WriteAsync(store, version: 1);
        }

        await using (FasterRecordStore store = StoreFactory.Open(Options(home.Path, DurabilityMode.Checkpoint)))
        {
            Assert.False(Directory.Exists(Path.Combine(home.Path, "store.wal")), "Checkpoint mode retires the log");
        }

        await using (FasterRecordStore store = StoreFactory.Open(CommitOptions(home.Path, walHome.Path)))
        {
            await WriteAsync(store, version: 2);
        }

        await using (FasterRecordStore store = StoreFactory.Open(CheckpointOptions(home.Path, walHome.Path)))
        {
            await AssertEveryKeyAsync(store, version: 2);
        }

        Assert.Empty(Directory.GetFileSystemEntries(walHome.Path));
        Assert.False(StoreManifest.ReadIfExists(Path.Combine(home.Path, "store.manifest.json"))!.WriteAheadLogElsewhere);
        await using FasterRecordStore back = StoreFactory.Open(CommitOptions(home.Path, null));
        await AssertEveryKeyAsync(back, version: 2);
        await WriteAsync(back, version: 3);
        await AssertEveryKeyAsync(back, version: 3);
    }

    /// <summary>
    /// A crash after Checkpoint mode recorded a retired log as gone, before it deleted the log's files, leaves a log of
    /// older writes behind. Moving the log there again must start a new one, not replay the old over newer writes.
    /// </summary>
    [Fact]
    public async Task ALeftoverLogElsewhere_ThatTheManifestNoLongerNames_IsNeverReplayed()
    {
        using var home = new TempDirectory();
        using var walHome = new TempDirectory();
        using var crash = new TempDirectory();
        using var walCrash = new TempDirectory();
        using var leftover = new TempDirectory();
        // A crash with every write in the log alone: the log has entries to replay.
        await WriteThenCopyAsCrashAsync(home.Path, walHome.Path, version: 1, crash.Path, walCrash.Path);

        CrashImage.Copy(walCrash.Path, leftover.Path);
        await using (FasterRecordStore store = StoreFactory.Open(CheckpointOptions(crash.Path, walCrash.Path)))
        {
            await AssertEveryKeyAsync(store, version: 1);
            await WriteAsync(store, version: 2);
        }

        Assert.Empty(Directory.GetFileSystemEntries(walCrash.Path));
        CrashImage.Copy(leftover.Path, walCrash.Path);
        await using FasterRecordStore reopened = StoreFactory.Open(CommitOptions(crash.Path, walCrash.Path));
        await AssertEveryKeyAsync(reopened, version: 2);
    }

    /// <summary>A manifest written before stores had ids gets one when its log first moves out.</summary>
    [Fact]
    public async Task AStoreCreatedBeforeStoreIds_MovesItsLogOut_AndRecoversFromThere()
    {
        using var home = new TempDirectory();
        using var walHome = new TempDirectory();
        using var crash = new TempDirectory();
        using var walCrash = new TempDirectory();
        await using (FasterRecordStore store = StoreFactory.Open(Options(home.Path, DurabilityMode.Checkpoint)))
        {
            await WriteAsync(store, version: 1);
        }

        string manifestPath = Path.Combine(home.Path, "store.manifest.json");
        StoreManifest withoutId = StoreManifest.ReadIfExists(manifestPath)! with { StoreId = null };
        withoutId.WriteAtomically(manifestPath, DirectoryDurability.FileSystem);

        await WriteThenCopyAsCrashAsync(home.Path, walHome.Path, version: 2, crash.Path, walCrash.Path);

        string id = StoreManifest.ReadIfExists(Path.Combine(crash.Path, "store.manifest.json"))!.StoreId!;
        Assert.True(Directory.Exists(Path.Combine(walCrash.Path, $"store.{id}.wal")));
        await using FasterRecordStore recovered = StoreFactory.Open(CommitOptions(crash.Path, walCrash.Path));
        await AssertEveryKeyAsync(recovered, version: 2);
    }

    /// <summary>
    /// Stores of one prefix share a log directory, so they may check it at the same moment: each checks it with a probe
    /// file of its own. With one name for all, a store that found another's probe open was refused as if the directory
    /// could not be written (the probe is held open here, as that other store would).
    /// </summary>
    [Fact]
    public async Task AStoreOpens_WhileAnotherOfItsPrefixChecksTheSharedLogDirectory()
    {
        using var home = new TempDirectory();
        using var walHome = new TempDirectory();
        using (new FileStream(Path.Combine(walHome.Path, ".store.write-probe"), FileMode.Create, FileAccess.Write, FileShare.None))
        {
            await using FasterRecordStore store = StoreFactory.Open(CommitOptions(home.Path, walHome.Path));
            await WriteAsync(store, version: 1);
            await AssertEveryKeyAsync(store, version: 1);
        }
    }

    [Fact]
    public void AnUnwritableLogDirectory_IsReportedAsTheOptionToChange()
    {
        using var home = new TempDirectory();
        string notADirectory = Path.Combine(home.Path, "a-file");
        File.WriteAllText(notADirectory, "not a directory");

        var error = Assert.Throws<LogDirectoryUnavailableException>(() => StoreFactory.Open(CommitOptions(Path.Combine(home.Path, "store"), notADirectory)));

        Assert.Contains(nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory), error.Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// A new log elsewhere is recorded only after the directory holding it is flushed. When that flush fails, the error
    /// must name that directory and its option, not the store's directory and LogDirectory.
    /// </summary>
    [Fact]
    public async Task AFailedFlushOfTheDirectoryHoldingANewLogElsewhere_NamesThatDirectory_AndWriteAheadLogDirectory()
    {
        using var home = new TempDirectory();
        using var walHome = new TempDirectory();
        string walParent = Path.GetFullPath(walHome.Path).TrimEnd(Path.DirectorySeparatorChar);
        StoreSettings settings = StoreSettingsValidator.Validate(CommitOptions(home.Path, walHome.Path)) with { Directories = new FailingFlushOf(walParent) };

        var error = Assert.Throws<LogDirectoryUnavailableException>(() => StoreOpener.Open(settings, NullLogger.Instance));

        Assert.Equal(walParent, error.Directory);
        Assert.Contains(nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory), error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain($"Set {nameof(MixedStorageKVStoreOptions)}.{nameof(MixedStorageKVStoreOptions.LogDirectory)} ", error.Message, StringComparison.Ordinal);
        await using FasterRecordStore store = StoreFactory.Open(CommitOptions(home.Path, walHome.Path));
        await WriteAsync(store, version: 1);
        await AssertEveryKeyAsync(store, version: 1);
    }

    /// <summary>Flushes for real, except <c>directory</c>, whose flush fails as a failing disk's would.</summary>
    private sealed class FailingFlushOf(string directory) : DirectoryDurability
    {
        public override void Flush(string flushed)
        {
            if (Path.GetFullPath(flushed).TrimEnd(Path.DirectorySeparatorChar) == directory)
            {
                throw new IOException($"injected: the directory '{directory}' could not be flushed to disk (errno 5).");
            }

            base.Flush(flushed);
        }
    }

    private static MixedStorageKVStoreOptions CommitOptions(string directory, string? writeAheadLogDirectory)
    {
        MixedStorageKVStoreOptions options = Options(directory, DurabilityMode.Commit);
        options.WriteAheadLogDirectory = writeAheadLogDirectory;
        return options;
    }

    private static MixedStorageKVStoreOptions CheckpointOptions(string directory, string writeAheadLogDirectory)
    {
        MixedStorageKVStoreOptions options = Options(directory, DurabilityMode.Checkpoint);
        options.WriteAheadLogDirectory = writeAheadLogDirectory;
        return options;
    }

    /// <summary>
    /// Opens a Commit-mode store with its log in <paramref name="walHome"/>, writes every key at <paramref name="version"/>,
    /// and copies the store's files and its log's while it is open: what a crash would leave.
    /// </summary>
    private static async Task WriteThenCopyAsCrashAsync(string home, string walHome, int version, string crash, string walCrash)
    {
        await using FasterRecordStore store = StoreFactory.Open(CommitOptions(home, walHome));
        await WriteAsync(store, version);
        CrashImage.Copy(home, crash);
        CrashImage.Copy(walHome, walCrash);
    }

    private static async Task WriteAsync(FasterRecordStore store, int version)
    {
        for (int i = 0; i < Keys; i++)
        {
            await store.UpsertAsync(Key(i), Value(i, version, 200));
        }
    }

    private static async Task AssertEveryKeyAsync(FasterRecordStore store, int version)
    {
        foreach (int i in Enumerable.Range(0, Keys))
        {
            Assert.Equal(Value(i, version, 200), await ReadAsync(store, i));
        }
    }
}
