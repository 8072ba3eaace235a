using System;
using System.IO;
using System.Threading.Tasks;
using KeyValueStore.CrashHarness;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;
using static KeyValueStore.Tests.Durability.DurableStores;

namespace KeyValueStore.Tests.Durability;

public class ManifestAndLockTests
{
    public static TheoryData<string, Action<MixedStorageKVStoreOptions>> ChangedSettings => new()
    {
        { nameof(MixedStorageKVStoreOptions.ValueChecksums), o => o.ValueChecksums = true },
        { nameof(MixedStorageKVStoreOptions.PageSizeBits), o => o.PageSizeBits = 13 },
        { nameof(MixedStorageKVStoreOptions.SegmentSizeBits), o => o.SegmentSizeBits = 21 },
        { nameof(MixedStorageKVStoreOptions.IndexNumBuckets), o => o.IndexNumBuckets = 1 << 17 },
    };

    [Theory]
    [MemberData(nameof(ChangedSettings))]
    public async Task Reopen_WithAnotherSetting_ThrowsMismatchNamingIt_LeavesTheFiles_AndTheRightSettingsStillOpen(string setting, Action<MixedStorageKVStoreOptions> change)
    {
        using var temp = new TempDirectory();
        await DamagedFilesTests.WriteAndCloseAsync(Options(temp.Path, DurabilityMode.Checkpoint), 300);
        var before = Snapshot(temp.Path);
        var changed = Options(temp.Path, DurabilityMode.Checkpoint);
        change(changed);

        var error = Assert.Throws<StoreManifestMismatchException>(() => StoreFactory.Open(changed));

        Assert.Equal(setting, error.Setting);
        Assert.Contains(setting, error.Message, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(temp.Path));
        await using var store = StoreFactory.Open(Options(temp.Path, DurabilityMode.Checkpoint));
        Assert.Equal(Value(299, 1, 200), await ReadAsync(store, 299));
    }

    [Fact]
    public async Task Reopen_WithOtherKeyTypes_ThrowsMismatch()
    {
        using var temp = new TempDirectory();
        await DamagedFilesTests.WriteAndCloseAsync(Options(temp.Path, DurabilityMode.Checkpoint), 10);
        var settings = StoreSettingsValidator.Validate(Options(temp.Path, DurabilityMode.Checkpoint));

        var error = Assert.Throws<StoreManifestMismatchException>(() =>
            StoreOpener.Open(settings, NullLogger.Instance, format: new RecordFormat("System.String", "System.Byte[]", "none")));

        Assert.Equal("key and value types", error.Setting);
        Assert.Equal("<System.Byte[], System.Byte[]>", error.StoredValue);
        Assert.Equal("<System.String, System.Byte[]>", error.RequestedValue);
    }

    [Fact]
    public async Task Reopen_WithAnUnknownFormatVersion_ThrowsMismatch()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await DamagedFilesTests.WriteAndCloseAsync(options, 10);
        string manifestPath = Path.Combine(temp.Path, "store.manifest.json");
        StoreManifest stored = StoreManifest.ReadIfExists(manifestPath)!;
        (stored with { FormatVersion = 99 }).WriteAtomically(manifestPath, DirectoryDurability.FileSystem);

        var error = Assert.Throws<StoreManifestMismatchException>(() => StoreFactory.Open(options));

        Assert.Equal(nameof(StoreManifest.FormatVersion), error.Setting);
        Assert.Equal("99", error.StoredValue);
    }

    [Fact]
    public async Task DamagedManifest_IsReportedByName()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await DamagedFilesTests.WriteAndCloseAsync(options, 10);
        string manifestPath = Path.Combine(temp.Path, "store.manifest.json");
        File.WriteAllText(manifestPath, File.ReadAllText(manifestPath).Replace("\"PageSizeBits\": 12", "\"PageSizeBits\": 13", StringComparison.Ordinal));

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(manifestPath, error.FilePath);
        Assert.Contains("checksum", error.Problem, StringComparison.Ordinal);
    }

    [Fact]
    public async Task MissingManifest_BesideTheStoresFiles_IsReportedByName()
    {
        using var temp = new TempDirectory();
        var options = Options(temp.Path, DurabilityMode.Checkpoint);
        await DamagedFilesTests.WriteAndCloseAsync(options, 10);
        string manifestPath = Path.Combine(temp.Path, "store.manifest.json");
        File.Delete(manifestPath);

        var error = Assert.Throws<StoreFileCorruptedException>(() => StoreFactory.Open(options));

        Assert.Equal(manifestPath, error.FilePath);
        Assert.False(File.Exists(manifestPath), "a failed open wrote a manifest");
    }

    [Theory]
    [InlineData(DurabilityMode.None)]
    [InlineData(DurabilityMode.Checkpoint)]
    public async Task ASecondStoreOnTheSameFiles_IsRefused_UntilTheFirstCloses(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        var options = mode == DurabilityMode.None ? StoreFactory.LowMemory(temp.Path) : Options(temp.Path, mode);
        var first = StoreFactory.Open(options);
        await first.UpsertAsync(Key(1), Value(1, 1));

        var error = Assert.Throws<StoreLockedException>(() => StoreFactory.Open(options));

        Assert.Equal(Path.Combine(temp.Path, "store.lock"), error.LockFilePath);
        Assert.Equal(Value(1, 1), await ReadAsync(first, 1));
        await first.DisposeAsync();
        await using var second = StoreFactory.Open(options);
        Assert.Equal(mode == DurabilityMode.None ? null : Value(1, 1), await ReadAsync(second, 1));
    }

    [Fact]
    public async Task AStoreHeldByAnotherProcess_IsRefused_AndFreedWhenThatProcessIsKilled()
    {
        using var temp = new TempDirectory();
        var options = CrashStore.Options(temp.Path, DurabilityMode.Checkpoint);
        string noKeysToReport = Path.Combine(temp.Path, "keys");
        File.WriteAllText(noKeysToReport, "");
        using var other = CrashWorkerProcess.Start(temp.Path, DurabilityMode.Checkpoint, seed: 1, versionBase: 0, noKeysToReport, []);
        await other.WaitUntilReadyOrGoneAsync();
        Assert.True(other.Ready, "the worker died before it had opened the store");

        var error = Assert.Throws<StoreLockedException>(() => StoreFactory.Open(options));

        Assert.Equal(Path.Combine(temp.Path, "crash.lock"), error.LockFilePath);
        await other.KillAsync();
        await using var store = StoreFactory.Open(options);
    }

    [Fact]
    public async Task StoresWithDifferentPrefixes_ShareADirectory_EachWithItsOwnData()
    {
        using var temp = new TempDirectory();
        var a = Options(temp.Path, DurabilityMode.Checkpoint);
        var b = Options(temp.Path, DurabilityMode.Checkpoint);
        b.LogFileNamePrefix = "other";

        await using (var first = StoreFactory.Open(a))
        await using (var second = StoreFactory.Open(b))
        {
            await first.UpsertAsync(Key(1), Value(1, 1));
            await second.UpsertAsync(Key(1), Value(1, 2));
        }

        await using var firstAgain = StoreFactory.Open(a);
        await using var secondAgain = StoreFactory.Open(b);
        Assert.Equal(Value(1, 1), await ReadAsync(firstAgain, 1));
        Assert.Equal(Value(1, 2), await ReadAsync(secondAgain, 1));
    }

    [Fact]
    public async Task ASuppliedFasterKV_WithDurableSettings_IsRejected_AndStaysUsableByItsOwner()
    {
        using var temp = new TempDirectory();
        var settings = StoreSettingsValidator.Validate(Options(temp.Path, DurabilityMode.Commit));
        using var device = FASTER.core.Devices.CreateLogDevice(Path.Combine(temp.Path, "own.log"), deleteOnClose: true);
        using var fasterKV = new FASTER.core.FasterKV<FASTER.core.SpanByte, FASTER.core.SpanByte>(1 << 12, new FASTER.core.LogSettings { LogDevice = device, PageSizeBits = 12, MemorySizeBits = 16 });

        var error = Assert.Throws<InvalidStoreOptionsException>(() => StoreOpener.OpenOnSupplied(fasterKV, settings, NullLogger.Instance));

        Assert.Contains(nameof(DurabilityMode.None), Assert.Single(error.Problems), StringComparison.Ordinal);
        var scratch = StoreSettingsValidator.Validate(StoreFactory.LowMemory(temp.Path));
        await using var store = StoreOpener.OpenOnSupplied(fasterKV, scratch with { PageSizeBits = 12 }, NullLogger.Instance);
        await store.UpsertAsync(Key(3), Value(3, 1));
        Assert.Equal(Value(3, 1), await ReadAsync(store, 3));
    }

    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AScratchStore_OnADurableStoresFiles_IsRefused_NamingBothModes_AndEveryRecordSurvives(DurabilityMode mode)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions durable = Options(temp.Path, mode);
        await DamagedFilesTests.WriteAndCloseAsync(durable, 2_000);
        var before = Snapshot(temp.Path);
        MixedStorageKVStoreOptions scratch = StoreFactory.LowMemory(temp.Path);
        scratch.DeleteLogOnClose = true;

        var error = Assert.Throws<StoreManifestMismatchException>(() => StoreFactory.Open(scratch));

        Assert.Equal(nameof(MixedStorageKVStoreOptions.Durability), error.Setting);
        Assert.Contains(nameof(DurabilityMode.None), error.Message, StringComparison.Ordinal);
        Assert.Contains($"{DurabilityMode.Checkpoint} or {DurabilityMode.Commit}", error.Message, StringComparison.Ordinal);
        Assert.Equal(before, Snapshot(temp.Path));
        await using var reopened = StoreFactory.Open(durable);
        for (int i = 0; i < 2_000; i++)
        {
            Assert.NotNull(await ReadAsync(reopened, i));
        }
    }
}
