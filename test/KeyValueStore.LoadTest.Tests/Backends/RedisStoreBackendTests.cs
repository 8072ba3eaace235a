using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.LoadTest.Workloads;
using KeyValueStore.Redis;
using KeyValueStore.Tests.Support;
using StackExchange.Redis;

namespace KeyValueStore.LoadTest.Tests.Backends;

/// <summary>
/// The Redis store's backends: <c>garnet</c> on a server of its own, <c>redis</c> on the Garnet server the fixture starts.
/// Both store what a user's <see cref="RedisKVStore{TKey, TValue}"/> of record ids and value bytes stores, keep nothing on
/// disk, and <c>redis</c> leaves nothing of its run on the server.
/// </summary>
public class RedisStoreBackendTests : IClassFixture<GarnetServerFixture>
{
    private const int ValueSize = 64;

    private readonly GarnetServerFixture _garnet;

    public RedisStoreBackendTests(GarnetServerFixture garnet)
    {
        _garnet = garnet;
    }

    [Theory]
    [InlineData("garnet")]
    [InlineData("redis")]
    public async Task Each_UpsertsReadsOverwritesAndDeletes_WithNothingOnDisk(string name)
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        var destination = new byte[ValueSize];

        Assert.Equal(-1, await backend.ReadAsync(Records.Key(1), destination));
        await backend.UpsertAsync(Records.Key(1), Records.Value(1, 1, ValueSize));
        await backend.UpsertAsync(Records.Key(1), Records.Value(1, 2, ValueSize));
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(1), destination));
        Assert.Equal(new DecodedValue(1, 2, FillerIntact: true), RecordCodec.Decode(destination));

        // A destination shorter than the value gets its start; the full length is still reported.
        var shorter = new byte[RecordCodec.HeaderSize];
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(1), shorter));
        Assert.Equal(Records.Value(1, 2, ValueSize).AsSpan(0, RecordCodec.HeaderSize).ToArray(), shorter);

        Assert.True(await backend.DeleteAsync(Records.Key(1)));
        Assert.False(await backend.DeleteAsync(Records.Key(1)));
        Assert.Equal(-1, await backend.ReadAsync(Records.Key(1), destination));
        Assert.Equal(0, backend.BytesOnDisk());
        Assert.Empty(System.IO.Directory.GetFileSystemEntries(temp.Path)); // Nothing of Garnet's in the run's directory either.
    }

    [Fact]
    public async Task Redis_StoresWhatAUsersStoreOfRecordIdsAndValueBytesReads_UnderAFreshPrefix()
    {
        // Found on the server, the key is the prefix and MessagePack's 42; a user's store of <long, byte[]> under that
        // prefix reads the very value bytes back, so the backend stored what the public API stores.
        using var temp = new TempDirectory();
        byte[] value = Records.Value(42, 3, ValueSize);
        await using ILoadTestBackend backend = BackendCatalog.Find("redis")!.Open(Context(temp.Path));
        await backend.UpsertAsync(Records.Key(42), value);

        RedisKey key = Assert.Single(await _garnet.KeysAsync("loadtest-*"));
        byte[] raw = ((byte[]?)key)!;
        string prefix = Encoding.ASCII.GetString(raw, 0, raw.Length - 1);
        Assert.Matches("^loadtest-[0-9a-f]{32}:$", prefix);
        Assert.Equal(42, raw[^1]); // MessagePack's positive fixint 42: the key is a long.
        await using RedisKVStore<long, byte[]> store = await RedisKVStore<long, byte[]>.ConnectAsync(new RedisKVStoreOptions { Configuration = _garnet.Endpoint, KeyPrefix = prefix });
        (KeyStatus status, byte[]? read) = await store.ReadAsync(42);
        Assert.Equal(KeyStatus.Found, status);
        Assert.Equal(value, read);
    }

    [Fact]
    public async Task Redis_DeletesEveryKeyItWrote_WhenDisposed_AndNothingElse()
    {
        // More keys than one page of the cleanup's scan, written one at a time and in batches.
        using var temp = new TempDirectory();
        await using (ConnectionMultiplexer connection = await _garnet.ConnectAsync())
        {
            await connection.GetDatabase().StringSetAsync("someone-else:1", "theirs");
        }

        await using (ILoadTestBackend backend = BackendCatalog.Find("redis")!.Open(Context(temp.Path)))
        {
            for (long id = 0; id < 1500; id++)
            {
                await backend.UpsertAsync(Records.Key(id), Records.Value(id, 1, ValueSize));
            }

            var writes = new List<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)>();
            for (long id = 1500; id < 2500; id++)
            {
                writes.Add((Records.Key(id), Records.Value(id, 1, ValueSize)));
            }

            await ((IBatchWriter)backend).WriteBatchAsync(writes);
            Assert.Equal(2500, (await _garnet.KeysAsync("loadtest-*")).Count);
        }

        Assert.Empty(await _garnet.KeysAsync("loadtest-*"));
        Assert.Equal("someone-else:1", (string?)Assert.Single(await _garnet.KeysAsync("*")));
        await using (ConnectionMultiplexer connection = await _garnet.ConnectAsync())
        {
            await connection.GetDatabase().KeyDeleteAsync("someone-else:1");
        }
    }

    [Fact]
    public async Task TwoRedisRuns_OnOneServer_SeeNothingOfEachOther()
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend first = BackendCatalog.Find("redis")!.Open(Context(temp.Path));
        await using ILoadTestBackend second = BackendCatalog.Find("redis")!.Open(Context(temp.Path));

        await first.UpsertAsync(Records.Key(7), Records.Value(7, 1, ValueSize));

        Assert.Equal(-1, await second.ReadAsync(Records.Key(7), new byte[ValueSize]));
    }

    [Fact]
    public void Redis_ToAServerThatIsNotThere_FailsAtOpen_NamingTheEndpoint()
    {
        using var temp = new TempDirectory();
        string nobody = $"127.0.0.1:{UnusedPort()}";

        InvalidOperationException error = Assert.Throws<InvalidOperationException>(
            () => BackendCatalog.Find("redis")!.Open(Context(temp.Path) with { Endpoint = nobody }));

        Assert.Contains($"Could not connect to the server at {nobody}", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Redis_WithoutAnEndpoint_IsRefusedAtOpen()
    {
        // The command line refuses it first (OptionParserTests); this is the benchmarks' and tests' way in.
        using var temp = new TempDirectory();

        ArgumentException error = Assert.Throws<ArgumentException>(() => BackendCatalog.Find("redis")!.Open(Context(temp.Path) with { Endpoint = null }));

        Assert.Contains("--endpoint host:port", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheCatalog_SaysWhichBackendNeedsAnEndpoint_AndThatNeitherUsesTheDiskOrMemorySize()
    {
        BackendDescriptor garnet = BackendCatalog.Find("garnet")!;
        BackendDescriptor redis = BackendCatalog.Find("redis")!;

        Assert.False(garnet.NeedsEndpoint);
        Assert.True(redis.NeedsEndpoint);
        Assert.All(new[] { garnet, redis }, backend => Assert.False(backend.UsesMemorySize || backend.StoresOnDisk || backend.KeepsWriteAheadLog));
        Assert.Equal(["redis"], BackendCatalog.All.Where(backend => backend.NeedsEndpoint).Select(backend => backend.Name));
    }

    private static int UnusedPort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    private BackendContext Context(string directory) => new(directory, Records: 100, ValueSize, LoadTestOptions.DefaultMemorySize, Endpoint: _garnet.Endpoint);
}
