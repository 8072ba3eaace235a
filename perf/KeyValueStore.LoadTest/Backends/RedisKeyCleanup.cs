using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Threading.Tasks;
using StackExchange.Redis;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// Deletes every key under a prefix, so that a run against a server someone else owns leaves nothing behind. The keys are
/// found with <c>SCAN</c> (<see cref="IServer.KeysAsync"/>), never <c>KEYS</c>, which would block the server while it
/// walks every key it has.
/// </summary>
internal static class RedisKeyCleanup
{
    private const int PageSize = 1000;

    /// <summary>
    /// Deletes the keys under <paramref name="prefix"/> on every primary <paramref name="connection"/> reaches (one server,
    /// or each primary of a cluster); returns how many were deleted.
    /// </summary>
    /// <remarks>
    /// Each server's keys are all listed before any is deleted: Redis allows deleting during a scan, but a server whose scan
    /// walks its log, as Garnet's does, is then asked to skip records changed behind its cursor, and listing first asks
    /// nothing of it. Each key is its own <c>DEL</c>, pipelined a page at a time: the keys of a page may live in different
    /// slots of a cluster, where one <c>DEL</c> of several would be refused.
    /// </remarks>
    public static async Task<long> DeleteUnderPrefixAsync(IConnectionMultiplexer connection, string prefix)
    {
        IDatabase database = connection.GetDatabase();
        RedisValue pattern = Escaped(prefix) + "*";
        long deleted = 0;
        foreach (IServer server in connection.GetServers().Where(server => server.IsConnected && !server.IsReplica))
        {
            var keys = new List<RedisKey>();
            await foreach (RedisKey key in server.KeysAsync(pattern: pattern, pageSize: PageSize).ConfigureAwait(false))
            {
                keys.Add(key);
            }

            foreach (RedisKey[] page in keys.Chunk(PageSize))
            {
                bool[] removed = await Task.WhenAll(page.Select(key => database.KeyDeleteAsync(key))).ConfigureAwait(false);
                deleted += removed.Count(wasThere => wasThere);
            }
        }

        return deleted;
    }

    /// <summary>The prefix as a <c>SCAN</c> pattern that matches it literally: its glob characters escaped.</summary>
    private static string Escaped(string prefix)
    {
        var pattern = new StringBuilder(prefix.Length);
        foreach (char c in prefix)
        {
            if (c is '*' or '?' or '[' or ']' or '\\')
            {
                pattern.Append('\\');
            }

            pattern.Append(c);
        }

        return pattern.ToString();
    }
}
