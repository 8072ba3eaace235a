using System;
using System.IO;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Backends;

/// <summary>
/// The engine backends, <c>faster</c>, <c>faster-checkpoint</c> and <c>faster-commit</c>: the store's engine on real
/// files, reading values back as the load test asks, and counting as durable flushes the store's checkpoints plus, in
/// Commit mode, its write-ahead log's group commits.
/// </summary>
public class FasterBackendTests
{
    private const int ValueSize = 16;

    [Theory]
    [InlineData("faster")]
    [InlineData("faster-checkpoint")]
    [InlineData("faster-commit")]
    public async Task EveryFasterBackend_ReadsBackTheLatestValue_ItsLengthBeyondAShortDestination_AndNotFoundForAnAbsentKey(string name)
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        await backend.UpsertAsync(Key(1), Value(1, 1));
        await backend.UpsertAsync(Key(1), Value(1, 2));

        var destination = new byte[ValueSize];
        Assert.Equal(ValueSize, await backend.ReadAsync(Key(1), destination));
        Assert.Equal(Value(1, 2), destination);
        Assert.Equal(-1, await backend.ReadAsync(Key(2), destination));

        // A destination shorter than the value gets its start; the full length is still reported.
        var shorter = new byte[4];
        Assert.Equal(ValueSize, await backend.ReadAsync(Key(1), shorter));
        Assert.Equal(Value(1, 2).AsSpan(0, shorter.Length).ToArray(), shorter);
    }

    [Fact]
    public async Task FasterCommit_CountsAGroupCommitForEachAwaitedUpsert_AndKeepsItsLogOnDisk()
    {
        using var temp = new TempDirectory();
        await using var backend = (FasterBackend)BackendCatalog.Find("faster-commit")!.Open(Context(temp.Path));
        long before = backend.DurableFlushes!.Value;

        // An upsert completes only once a group commit of the write-ahead log holds it, and each one here is appended
        // after the previous one was acknowledged, so no two can share a commit.
        for (byte key = 0; key < 10; key++)
        {
            await backend.UpsertAsync(Key(key), Value(key, 1));
        }

        long after = backend.DurableFlushes!.Value;
        Assert.True(after - before >= 10, $"flushes before {before}, after {after}, for 10 awaited upserts");
        Assert.True(backend.BytesOnDisk() > 0, "the write-ahead log is on disk");
        Assert.StartsWith("a write-ahead log group commit", backend.FlushNote, StringComparison.Ordinal);
    }

    [Fact]
    public async Task FasterCheckpoint_CountsTheCheckpointItTakesOnClose_WhichHoldsItsWrites()
    {
        using var temp = new TempDirectory();
        var backend = (FasterBackend)BackendCatalog.Find("faster-checkpoint")!.Open(Context(temp.Path));
        for (byte key = 0; key < 10; key++)
        {
            await backend.UpsertAsync(Key(key), Value(key, 1));
        }

        long beforeClose = backend.DurableFlushes!.Value;
        await backend.DisposeAsync();

        Assert.True(backend.DurableFlushes!.Value > beforeClose, $"flushes before close {beforeClose}, after {backend.DurableFlushes}");

        // The same backend on the same files recovers from that checkpoint.
        await using ILoadTestBackend reopened = BackendCatalog.Find("faster-checkpoint")!.Open(Context(temp.Path));
        var destination = new byte[ValueSize];
        for (byte key = 0; key < 10; key++)
        {
            Assert.Equal(ValueSize, await reopened.ReadAsync(Key(key), destination));
            Assert.Equal(Value(key, 1), destination);
        }
    }

    [Fact]
    public async Task Faster_WithDurabilityNone_CountsNoFlushes_AndDeletesItsFilesOnClose()
    {
        using var temp = new TempDirectory();
        var backend = (FasterBackend)BackendCatalog.Find("faster")!.Open(Context(temp.Path));

        await backend.UpsertAsync(Key(1), Value(1, 1));

        Assert.Null(backend.DurableFlushes);
        await backend.DisposeAsync();

        // Counted as names, not bytes: the log of one small write is still all in memory, its files empty.
        Assert.Empty(Directory.Exists(temp.Path) ? Directory.GetFiles(temp.Path, "*", SearchOption.AllDirectories) : []);
    }

    private static byte[] Key(byte id) => [id];

    private static byte[] Value(byte id, byte version)
    {
        var value = new byte[ValueSize];
        value.AsSpan().Fill(0xAB);
        value[0] = id;
        value[1] = version;
        return value;
    }

    [Theory]
    [InlineData("faster-commit")]
    [InlineData("typed-commit")]
    public async Task ACommitBackend_WithAWriteAheadLogDirectory_KeepsItsLogThere_AndCountsItsBytesOnDisk(string name)
    {
        using var temp = new TempDirectory();
        using var walHome = new TempDirectory();
        BackendContext context = Context(temp.Path) with { WriteAheadLogDirectory = walHome.Path };
        ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(context);
        for (byte key = 0; key < 10; key++)
        {
            // A record id as 8 big-endian bytes, which the typed backend needs too.
            await backend.UpsertAsync(new byte[] { 0, 0, 0, 0, 0, 0, 0, key }, Value(key, 1));
        }

        // Counted once the store has closed, so that no file changes between the counts.
        await backend.DisposeAsync();
        string log = Assert.Single(Directory.GetDirectories(walHome.Path));
        Assert.DoesNotContain(Directory.GetDirectories(temp.Path), directory => directory.EndsWith(".wal", StringComparison.Ordinal));
        Assert.True(DirectorySize.Of(log) > 0, "the log has no bytes");
        Assert.Equal(DirectorySize.Of(temp.Path) + DirectorySize.Of(log), backend.BytesOnDisk());
    }

    [Fact]
    public void MutableFraction_ReachesTheStoresOptions()
    {
        var context = Context("/tmp/unused") with { MutableFraction = 0.25 };

        Assert.Equal(0.25, FasterStoreSizing.Options(context).LogMutableFraction);
        Assert.Null(FasterStoreSizing.Options(context with { MutableFraction = null }).LogMutableFraction);
    }

    [Fact]
    public void SegmentSize_ReachesTheStoresOptions_AndIsSixteenMegabytesWhenLeftOut()
    {
        // The default 64 MB of memory makes 8 MB pages.
        var context = Context("/tmp/unused") with { SegmentSizeBytes = 32L << 20 };

        Assert.Equal(25, FasterStoreSizing.Options(context).SegmentSizeBits);
        Assert.Equal(24, FasterStoreSizing.Options(context with { SegmentSizeBytes = null }).SegmentSizeBits);
    }

    [Fact]
    public void CompactionRatio_ReachesTheStoresOptions()
    {
        var context = Context("/tmp/unused") with { CompactionRatio = 1.5 };

        Assert.Equal(1.5, FasterStoreSizing.Options(context).CompactionLogToLiveRatio);
        Assert.Equal(new MixedStorageKVStoreOptions().CompactionLogToLiveRatio, FasterStoreSizing.Options(context with { CompactionRatio = null }).CompactionLogToLiveRatio);
    }

    private static BackendContext Context(string directory) => new(directory, Records: 100, ValueSize, LoadTestOptions.DefaultMemorySize);
}
