using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.LoadTest.Workloads;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Backends;

/// <summary>
/// Every backend with atomic batches writes them (<see cref="IBatchWriter"/>): all of a batch's writes, in order, the last
/// write of a key winning. ZoneTree's ordinary tree and raw FASTER have no atomic multi-key write, so they have no batches
/// (see PeerBackendTests for how --batch-size refuses them). The redis backend measures the Garnet server the fixture starts.
/// </summary>
public class BatchWriterTests : IClassFixture<GarnetServerFixture>
{
    private static readonly string[] WithoutBatches = ["zonetree", "raw-faster"];

    private readonly GarnetServerFixture _garnet;

    public BatchWriterTests(GarnetServerFixture garnet)
    {
        _garnet = garnet;
    }

    public static TheoryData<string> Backends => new(BackendCatalog.All.Select(backend => backend.Name).Where(name => !WithoutBatches.Contains(name)));

    [Theory]
    [MemberData(nameof(Backends))]
    public async Task EveryBackend_WritesEveryValueOfABatch_TheLastWriteOfAKeyWinning(string name)
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        await backend.UpsertAsync(Records.Key(0), Value(99)); // A batch overwrites what was there.

        // Keys 0 to 49, then key 7 again: 51 writes; key 7 must hold the second value.
        var writes = new List<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)>();
        for (byte key = 0; key < 50; key++)
        {
            writes.Add((Records.Key(key), Value(key)));
        }

        writes.Add((Records.Key(7), Value(200)));
        await ((IBatchWriter)backend).WriteBatchAsync(writes);

        var destination = new byte[16];
        for (byte key = 0; key < 50; key++)
        {
            Assert.Equal(16, await backend.ReadAsync(Records.Key(key), destination));
            Assert.Equal(key == 7 ? 200 : key, destination[0]);
        }

        Assert.Equal(-1, await backend.ReadAsync(Records.Key(50), destination));
    }

    [Fact]
    public async Task SqliteFull_CountsOneDurableFlushPerBatch_ItsOneTransaction()
    {
        using var temp = new TempDirectory();
        await using var backend = (SqliteBackend)BackendCatalog.Find("sqlite-full")!.Open(Context(temp.Path));

        for (byte batch = 0; batch < 3; batch++)
        {
            await backend.WriteBatchAsync(Enumerable.Range(0, 40).Select(key => ((ReadOnlyMemory<byte>)BitConverter.GetBytes(key), (ReadOnlyMemory<byte>)Value(batch))).ToArray());
        }

        Assert.Equal(3, backend.DurableFlushes);
    }

    [Theory]
    [InlineData("faster-commit")]
    [InlineData("typed-commit")]
    public async Task CommitMode_AcknowledgesABatchOnlyAfterADurableFlush(string name)
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        var flushes = (IDurableFlushCounter)backend;
        long before = flushes.DurableFlushes!.Value;

        await ((IBatchWriter)backend).WriteBatchAsync([(Records.Key(1), Value(1)), (Records.Key(2), Value(2))]);

        Assert.True(flushes.DurableFlushes!.Value > before, $"flushes before {before}, after {flushes.DurableFlushes}");
    }

    private static byte[] Value(byte first)
    {
        var value = new byte[16];
        value[0] = first;
        return value;
    }

    private BackendContext Context(string directory) => new(directory, Records: 100, ValueSize: 16, LoadTestOptions.DefaultMemorySize, Endpoint: _garnet.Endpoint);
}
