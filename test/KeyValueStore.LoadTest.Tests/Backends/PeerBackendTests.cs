using System;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.LoadTest.Workloads;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Backends;

/// <summary>
/// The peer stores (LiteDB, RocksDB, ZoneTree) and raw FASTER, each on real files in its own directory: the same
/// operations the load test and the benchmarks run, their batches where they have them, and their files on disk.
/// </summary>
public class PeerBackendTests
{
    private const int ValueSize = 64;

    public static TheoryData<string> Peers => new() { "litedb", "rocksdb", "rocksdb-sync", "zonetree", "raw-faster" };

    public static TheoryData<string> PeersWithBatches => new() { "litedb", "rocksdb", "rocksdb-sync" };

    public static TheoryData<string> PeersWithoutBatches => new() { "zonetree", "raw-faster" };

    [Theory]
    [MemberData(nameof(Peers))]
    public async Task EachPeer_UpsertsReadsOverwritesAndDeletes(string name)
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        var destination = new byte[ValueSize];

        Assert.Equal(-1, await backend.ReadAsync(Records.Key(1), destination));
        await backend.UpsertAsync(Records.Key(1), Records.Value(1, 1, ValueSize));
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(1), destination));
        Assert.Equal(new DecodedValue(1, 1, FillerIntact: true), RecordCodec.Decode(destination));

        await backend.UpsertAsync(Records.Key(1), Records.Value(1, 2, ValueSize));
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(1), destination));
        Assert.Equal(new DecodedValue(1, 2, FillerIntact: true), RecordCodec.Decode(destination));

        // A destination shorter than the value gets its start; the full length is still reported.
        var shorter = new byte[RecordCodec.HeaderSize];
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(1), shorter));
        Assert.Equal(Records.Value(1, 2, ValueSize).AsSpan(0, RecordCodec.HeaderSize).ToArray(), shorter);

        Assert.True(await backend.DeleteAsync(Records.Key(1)));
        Assert.Equal(-1, await backend.ReadAsync(Records.Key(1), destination));
        Assert.False(await backend.DeleteAsync(Records.Key(1)));
        Assert.False(await backend.DeleteAsync(Records.Key(2)));
    }

    [Theory]
    [MemberData(nameof(Peers))]
    public async Task EachPeer_KeepsWhatItWasGiven_WhenTheCallerReusesItsBuffers(string name)
    {
        // The load test overwrites its key and value buffers as soon as a write returns: a store that kept them
        // instead of copying would change its records afterwards.
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        byte[] key = Records.Key(3);
        byte[] value = Records.Value(3, 1, ValueSize);
        await backend.UpsertAsync(key, value);

        RecordCodec.WriteKey(key, 4);
        RecordCodec.WriteValue(value, 4, 9);

        var destination = new byte[ValueSize];
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(3), destination));
        Assert.Equal(new DecodedValue(3, 1, FillerIntact: true), RecordCodec.Decode(destination));
        Assert.Equal(-1, await backend.ReadAsync(Records.Key(4), destination));
    }

    [Theory]
    [InlineData("litedb")]
    [InlineData("rocksdb")]
    [InlineData("rocksdb-sync")]
    [InlineData("zonetree")]
    public async Task EachPeerWithALog_HasBytesOnDisk_AfterWrites(string name)
    {
        // Raw FASTER writes to its file only once its log outgrows memory; RawFaster_ReadsRecordsBackFromItsFile covers it.
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        for (long id = 0; id < 200; id++)
        {
            await backend.UpsertAsync(Records.Key(id), Records.Value(id, 1, ValueSize));
        }

        Assert.True(backend.BytesOnDisk() > 0, $"{name} reports no bytes on disk; files: {string.Join(", ", Directory.GetFiles(temp.Path, "*", SearchOption.AllDirectories))}");
    }

    [Theory]
    [MemberData(nameof(PeersWithBatches))]
    public async Task EachPeerWithBatches_AppliesABatchWhole_TheLastWriteOfAKeyWinning(string name)
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        await backend.UpsertAsync(Records.Key(0), Records.Value(0, 1, ValueSize));

        var writes = new List<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)>();
        for (long id = 0; id < 30; id++)
        {
            writes.Add((Records.Key(id), Records.Value(id, 2, ValueSize)));
        }

        writes.Add((Records.Key(5), Records.Value(5, 3, ValueSize)));
        await ((IBatchWriter)backend).WriteBatchAsync(writes);

        var destination = new byte[ValueSize];
        for (long id = 0; id < 30; id++)
        {
            Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(id), destination));
            Assert.Equal(new DecodedValue(id, id == 5 ? 3 : 2, FillerIntact: true), RecordCodec.Decode(destination));
        }
    }

    [Fact]
    public async Task LiteDb_LeavesNothingOfABatchThatFails()
    {
        // A batch whose last document LiteDB refuses (larger than its 16 MB document limit) must leave no trace of its
        // first writes: that is what makes it one transaction rather than a loop of upserts.
        using var temp = new TempDirectory();
        await using var backend = (LiteDbBackend)BackendCatalog.Find("litedb")!.Open(Context(temp.Path));
        await backend.UpsertAsync(Records.Key(1), Records.Value(1, 1, ValueSize));
        (ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)[] writes =
        [
            (Records.Key(1), Records.Value(1, 2, ValueSize)),
            (Records.Key(2), Records.Value(2, 1, ValueSize)),
            (Records.Key(3), new byte[20 * 1024 * 1024]),
        ];

        await Assert.ThrowsAsync<LiteDB.LiteException>(async () => await backend.WriteBatchAsync(writes));

        var destination = new byte[ValueSize];
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(1), destination));
        Assert.Equal(new DecodedValue(1, 1, FillerIntact: true), RecordCodec.Decode(destination));
        Assert.Equal(-1, await backend.ReadAsync(Records.Key(2), destination));
        Assert.Equal(-1, await backend.ReadAsync(Records.Key(3), destination));
    }

    [Theory]
    [MemberData(nameof(PeersWithoutBatches))]
    public async Task APeerWithoutAtomicBatches_IsNoBatchWriter_AndBatchSizeIsRefusedForIt(string name)
    {
        using var temp = new TempDirectory();
        await using (ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path)))
        {
            Assert.False(backend is IBatchWriter, $"{name} has no atomic multi-key write, so it must not claim batches");
        }

        CliRun run = await CliRun.SmallAsync(temp.Path, ["--backend", name, "--workload", "W", "--batch-size", "10"]);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"the {name} backend does not", run.Errors, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RocksDbSync_CountsOneDurableFlushPerSyncedWriteOrBatch_AndRocksDbNone()
    {
        using var temp = new TempDirectory();
        await using (var synced = (RocksDbBackend)BackendCatalog.Find("rocksdb-sync")!.Open(Context(Path.Combine(temp.Path, "sync"))))
        {
            await synced.UpsertAsync(Records.Key(1), Records.Value(1, 1, ValueSize));
            await synced.WriteBatchAsync([(Records.Key(2), Records.Value(2, 1, ValueSize)), (Records.Key(3), Records.Value(3, 1, ValueSize))]);
            await synced.DeleteAsync(Records.Key(1));
            await synced.DeleteAsync(Records.Key(9)); // Absent: nothing written, nothing synced.

            Assert.Equal(3, synced.DurableFlushes);
        }

        await using var unsynced = (RocksDbBackend)BackendCatalog.Find("rocksdb")!.Open(Context(Path.Combine(temp.Path, "nosync")));
        await unsynced.UpsertAsync(Records.Key(1), Records.Value(1, 1, ValueSize));
        Assert.Null(unsynced.DurableFlushes);
    }

    [Fact]
    public async Task RawFaster_ReadsRecordsBackFromItsFile_WhenTheyNoLongerFitInMemory()
    {
        // 64 KB of log memory against 400 records of 1 KB: most reads go pending to the segment file and complete there.
        using var temp = new TempDirectory();
        const int LargeValue = 1024;
        await using ILoadTestBackend backend = BackendCatalog.Find("raw-faster")!.Open(new BackendContext(temp.Path, Records: 400, LargeValue, MemorySizeBytes: 64 * 1024));
        for (long id = 0; id < 400; id++)
        {
            var value = new byte[LargeValue];
            RecordCodec.WriteValue(value, id, 1);
            await backend.UpsertAsync(Records.Key(id), value);
        }

        var destination = new byte[LargeValue];
        for (long id = 0; id < 400; id++)
        {
            Assert.Equal(LargeValue, await backend.ReadAsync(Records.Key(id), destination));
            Assert.Equal(new DecodedValue(id, 1, FillerIntact: true), RecordCodec.Decode(destination));
        }

        Assert.True(backend.BytesOnDisk() > 0, "the log spilled to its file");
    }

    private static BackendContext Context(string directory)
    {
        Directory.CreateDirectory(directory);
        return new BackendContext(directory, Records: 100, ValueSize, LoadTestOptions.DefaultMemorySize);
    }
}
