using System;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Conformance;
using KeyValueStore.Redis.Tests.Support;
using StackExchange.Redis;

namespace KeyValueStore.Redis.Tests;

/// <summary>What only the Redis store does: its bytes on the server, its namespaces, its connection, and what it does not do.</summary>
[Collection(GarnetCollection.Name)]
public sealed class RedisStoreTests(GarnetServerFixture garnet)
{
    [Theory]
    [InlineData(10)]
    [InlineData(5_000)]
    public async Task TheServerHolds_UnderThePrefix_TheBytesTheEmbeddedStoreHolds(int length)
    {
        RedisKVStoreOptions options = garnet.StoreOptions();
        await using RedisKVStore<Label, string> store = await RedisKVStore<Label, string>.ConnectAsync(options);
        var key = new Label("key", 7);
        string value = new('v', length);

        await store.UpsertAsync(key, value);

        // RecordSerializerTests shows that these are the bytes the embedded store holds for the same key and value.
        var serializer = new RecordSerializer<Label, string>(options.MessagePackSerializerOptions, options.ValueCompressionThresholdBytes, options.MaxValueBytes);
        byte[] prefixedKey = [.. System.Text.Encoding.UTF8.GetBytes(options.KeyPrefix), .. serializer.SerializeKey(key)];
        RedisValue stored = await store.Connection.GetDatabase().StringGetAsync(prefixedKey);
        Assert.Equal(serializer.SerializeValue(value), (byte[]?)stored);
    }

    [Fact]
    public async Task StoresWithOtherPrefixes_OnOneServer_NeverSeeEachOthersKeys()
    {
        await using RedisKVStore<int, string> orders = await RedisKVStore<int, string>.ConnectAsync(garnet.StoreOptions());
        await using RedisKVStore<int, string> invoices = await RedisKVStore<int, string>.ConnectAsync(garnet.StoreOptions());

        await orders.UpsertAsync(1, "order");
        await invoices.ApplyBatchAsync(new WriteBatch<int, string>().Upsert(1, "invoice").Upsert(2, "invoice 2"));

        Assert.Equal("order", (await orders.ReadAsync(1)).Value);
        Assert.Equal(KeyStatus.NotFound, (await orders.ReadAsync(2)).Status);
        Assert.Equal(KeyStatus.NotFound, await orders.DeleteAsync(2));
        Assert.Equal(["invoice", "invoice 2"], (await invoices.ReadManyAsync([1, 2])).Select(read => read.Value));
    }

    [Fact]
    public async Task AStoreOverTheCallersConnection_LeavesItOpen_WhenDisposed()
    {
        await using ConnectionMultiplexer connection = await ConnectionMultiplexer.ConnectAsync(garnet.Server.Configuration);
        RedisKVStoreOptions options = garnet.StoreOptions();

        await using (var store = new RedisKVStore<int, int>(connection, options))
        {
            await store.UpsertAsync(1, 10);
        }

        Assert.True(connection.IsConnected);
        await using var again = new RedisKVStore<int, int>(connection, options);
        Assert.Equal(10, (await again.ReadAsync(1)).Value);
    }

    [Fact]
    public async Task CheckpointAsync_IsNotSupported_SayingWhereDurabilityIsSet_AndCompactAsync_DoesNothing()
    {
        await using RedisKVStore<int, int> store = await RedisKVStore<int, int>.ConnectAsync(garnet.StoreOptions());
        await store.UpsertAsync(1, 1);

        NotSupportedException refused = await Assert.ThrowsAsync<NotSupportedException>(async () => await store.CheckpointAsync());
        Assert.Contains("--aof", refused.Message, StringComparison.Ordinal);
        Assert.Equal(new CompactionSummary(false, 0, 0, 0), await store.CompactAsync());
        Assert.Equal(1, (await store.ReadAsync(1)).Value);
    }

    [Fact]
    public async Task InvalidOptions_AreAllListed_BeforeAnythingConnects()
    {
        var options = new RedisKVStoreOptions { Configuration = " ", Database = -2, MaxValueBytes = 0, ReadRetries = -1, MaxUpdateAttempts = 0 };

        InvalidStoreOptionsException refused = await Assert.ThrowsAsync<InvalidStoreOptionsException>(() => RedisKVStore<int, int>.ConnectAsync(options));

        Assert.Equal(5, refused.Problems.Count);
        foreach (string option in new[] { "Configuration", "Database", "MaxValueBytes", "ReadRetries", "MaxUpdateAttempts" })
        {
            Assert.Contains(refused.Problems, problem => problem.StartsWith(option, StringComparison.Ordinal));
        }
    }

    [Fact]
    public void TheServersRefusals_AndLostConnections_BecomeTheLibrarysExceptions()
    {
        Assert.IsType<RedisCommandFailedException>(RedisFailures.Translate(new RedisServerException(RedisErrorKind.WrongType, CommandFlags.None, "WRONGTYPE Operation against a key holding the wrong kind of value"), "read", isWrite: false));
        var lost = Assert.IsType<StoreUnavailableException>(RedisFailures.Translate(new RedisConnectionException(ConnectionFailureType.SocketClosed, CommandFlags.None, "closed", null, CommandStatus.Sent), "upsert", isWrite: true));
        Assert.True(lost.WriteMayHaveApplied);
        Assert.Contains("may or may not have been applied", lost.Message, StringComparison.Ordinal);
        Assert.Null(RedisFailures.Translate(new OperationCanceledException(), "read", isWrite: false));
        Assert.Null(RedisFailures.Translate(new ObjectDisposedException("connection"), "read", isWrite: false));
    }
}
