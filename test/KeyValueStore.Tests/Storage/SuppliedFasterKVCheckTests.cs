using System;
using System.IO;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Storage;

/// <summary>
/// What a FasterKV built by the caller must not have (<see cref="SuppliedFasterKVCheck"/>), each refused before anything
/// is written to it. A read cache: a read it answers names no record of the log, and compaction took every key the cache
/// held for superseded (2,000 keys written, read, so that the cache held the last few hundred read from the disk, and
/// compacted: three lost once the cache let them go). No record locking: with <see cref="ConcurrencyControlMode.None"/>,
/// 200,000 updates in place of one 4,000-byte value, alternating all 'A' and all 'B', beside two readers gave 111,552
/// reads that mixed both (none with FASTER's default locking), since the store's stripes order writes, not reads.
/// </summary>
public class SuppliedFasterKVCheckTests
{
    [Fact]
    public void TheCheck_SeesTheLockingModeOfThisFasterVersion()
    {
        // Read by reflection: an upgrade of FASTER that moves it must fail here, not let unlocked stores through.
        Assert.True(SuppliedFasterKVCheck.SeesLockingMode, "FASTER's internal IsLocking is gone: find how this version tells its locking mode");
    }

    [Fact]
    public void ASuppliedFasterKV_WithAReadCache_IsRejected_SayingWhy_BeforeAnythingIsWrittenToIt()
    {
        using var temp = new TempDirectory();
        using IDevice device = Devices.CreateLogDevice(Path.Combine(temp.Path, "own.log"), deleteOnClose: true);
        using FasterKV<SpanByte, SpanByte> fasterKV = Built(device, ConcurrencyControlMode.LockTable, new ReadCacheSettings { PageSizeBits = 12, MemorySizeBits = 14 });

        AssertRefused(fasterKV, "read cache", "without ReadCacheSettings");
    }

    [Fact]
    public void ASuppliedFasterKV_ThatLocksNoRecord_IsRejected_SayingWhichModeToUse_BeforeAnythingIsWrittenToIt()
    {
        using var temp = new TempDirectory();
        using IDevice device = Devices.CreateLogDevice(Path.Combine(temp.Path, "own.log"), deleteOnClose: true);
        using FasterKV<SpanByte, SpanByte> fasterKV = Built(device, ConcurrencyControlMode.None);

        AssertRefused(fasterKV, "ConcurrencyControlMode.None", "ConcurrencyControlMode.LockTable");
    }

    [Fact]
    public void EveryProblemOfASuppliedFasterKV_IsListedAtOnce_TheDurabilityFirst()
    {
        using var temp = new TempDirectory();
        using IDevice device = Devices.CreateLogDevice(Path.Combine(temp.Path, "own.log"), deleteOnClose: true);
        using FasterKV<SpanByte, SpanByte> fasterKV = Built(device, ConcurrencyControlMode.None, new ReadCacheSettings { PageSizeBits = 12, MemorySizeBits = 14 });
        StoreSettings durable = StoreSettingsValidator.Validate(Durability.DurableStores.Options(temp.Path, DurabilityMode.Checkpoint));

        var error = Assert.Throws<InvalidStoreOptionsException>(() => StoreOpener.OpenOnSupplied(fasterKV, durable, NullLogger.Instance));

        Assert.Collection(
            error.Problems,
            problem => Assert.Contains("Durability", problem, StringComparison.Ordinal),
            problem => Assert.Contains("read cache", problem, StringComparison.Ordinal),
            problem => Assert.Contains("ConcurrencyControlMode.None", problem, StringComparison.Ordinal));
        Assert.Equal(fasterKV.Log.BeginAddress, fasterKV.Log.TailAddress);
    }

    [Theory]
    [InlineData(ConcurrencyControlMode.LockTable)]
    [InlineData(ConcurrencyControlMode.RecordIsolation)]
    public async Task ASuppliedFasterKV_ThatLocksRecords_IsUsed(ConcurrencyControlMode mode)
    {
        using var temp = new TempDirectory();
        using IDevice device = Devices.CreateLogDevice(Path.Combine(temp.Path, "own.log"), deleteOnClose: true);
        using FasterKV<SpanByte, SpanByte> fasterKV = Built(device, mode);

        await using var store = new MixedStorageKVStore<int, string>(Options(), null, fasterKV);
        await store.UpsertAsync(1, "one");

        Assert.Equal("one", (await store.ReadAsync(1)).Value);
    }

    /// <summary>Asserts that the store refuses <paramref name="fasterKV"/> for one problem that says each of <paramref name="saying"/>, and wrote nothing to it.</summary>
    private static void AssertRefused(FasterKV<SpanByte, SpanByte> fasterKV, params string[] saying)
    {
        var error = Assert.Throws<InvalidStoreOptionsException>(() => new MixedStorageKVStore<int, string>(Options(), null, fasterKV));

        string problem = Assert.Single(error.Problems);
        foreach (string words in saying)
        {
            Assert.Contains(words, problem, StringComparison.Ordinal);
        }

        Assert.Equal(fasterKV.Log.BeginAddress, fasterKV.Log.TailAddress);
    }

    private static FasterKV<SpanByte, SpanByte> Built(IDevice device, ConcurrencyControlMode mode, ReadCacheSettings? readCache = null) =>
        new(1 << 10, new LogSettings { LogDevice = device, PageSizeBits = 12, MemorySizeBits = 14, ReadCacheSettings = readCache }, concurrencyControlMode: mode);

    private static MixedStorageKVStoreOptions Options() => new() { PageSizeBits = 12, MemorySizeBits = 14 };
}
