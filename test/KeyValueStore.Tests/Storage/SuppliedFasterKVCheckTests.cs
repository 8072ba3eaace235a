using System;
using System.IO;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Engine;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

/// <summary>
/// A FasterKV built by the caller that locks no record returned torn values: with <see cref="ConcurrencyControlMode.None"/>,
/// 200,000 updates in place of one 4,000-byte value, alternating all 'A' and all 'B', beside two readers gave 111,552
/// reads that mixed both (none with FASTER's default locking). The store's stripes order writes, not reads, so such a
/// FasterKV is refused (<see cref="SuppliedFasterKVCheck"/>).
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
    public void ASuppliedFasterKV_ThatLocksNoRecord_IsRejected_SayingWhichModeToUse_BeforeAnythingIsWrittenToIt()
    {
        using var temp = new TempDirectory();
        using IDevice device = Devices.CreateLogDevice(Path.Combine(temp.Path, "own.log"), deleteOnClose: true);
        using FasterKV<SpanByte, SpanByte> fasterKV = Built(device, ConcurrencyControlMode.None);

        var error = Assert.Throws<InvalidStoreOptionsException>(() => new MixedStorageKVStore<int, string>(Options(), null, fasterKV));

        string problem = Assert.Single(error.Problems);
        Assert.Contains("ConcurrencyControlMode.None", problem, StringComparison.Ordinal);
        Assert.Contains("ConcurrencyControlMode.LockTable", problem, StringComparison.Ordinal);
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

    private static FasterKV<SpanByte, SpanByte> Built(IDevice device, ConcurrencyControlMode mode) =>
        new(1 << 10, new LogSettings { LogDevice = device, PageSizeBits = 12, MemorySizeBits = 14 }, concurrencyControlMode: mode);

    private static MixedStorageKVStoreOptions Options() => new() { PageSizeBits = 12, MemorySizeBits = 14 };
}
