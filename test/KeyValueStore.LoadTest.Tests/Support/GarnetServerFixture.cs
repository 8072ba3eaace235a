using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using StackExchange.Redis;

namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>
/// A Garnet server in the test process for the redis backend to measure, shared by one test class and stopped after it:
/// the garnet backend's own <see cref="InProcessGarnet"/>, at its smallest sizes.
/// </summary>
public sealed class GarnetServerFixture : IDisposable
{
    private readonly InProcessGarnet _server = new(records: 1000, valueSize: 64);

    /// <summary>Gets the server's host:port, as --endpoint takes it.</summary>
    public string Endpoint => _server.Endpoint;

    /// <summary>The keys on the server matching <paramref name="pattern"/>, found with SCAN over a connection of the test's own.</summary>
    public async Task<List<RedisKey>> KeysAsync(string pattern)
    {
        await using ConnectionMultiplexer connection = await ConnectAsync();
        var keys = new List<RedisKey>();
        await foreach (RedisKey key in connection.GetServers()[0].KeysAsync(pattern: pattern))
        {
            keys.Add(key);
        }

        return keys;
    }

    /// <summary>A connection of the test's own, to look at or write what the backend under test does not.</summary>
    public Task<ConnectionMultiplexer> ConnectAsync() => ConnectionMultiplexer.ConnectAsync(Endpoint);

    public void Dispose() => _server.Dispose();
}
