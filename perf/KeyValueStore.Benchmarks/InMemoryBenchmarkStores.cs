using System;
using System.IO;
using System.Threading.Tasks;
using BenchmarkDotNet.Configs;
using KeyValueStore.Engine;
using KeyValueStore.Storage;

namespace KeyValueStore.Benchmarks;

/// <summary>
/// What the single-operation suites (<see cref="TypedStore.TypedStoreBenchmarks"/>, <see cref="HotPath.HotPathBenchmarks"/>)
/// share: their stores' options, their cleanup, and a configuration that compares stores per operation.
/// </summary>
internal static class InMemoryBenchmarkStores
{
    /// <summary>
    /// Default 32 MB pages and 64 MB of log memory (a few thousand small records never leave the mutable region),
    /// compaction off, durability none, a 16 K-bucket index; each store's files under its own prefix.
    /// </summary>
    public static MixedStorageKVStoreOptions Options(string directory, string name) => new()
    {
        LogDirectory = directory,
        LogFileNamePrefix = name,
        TimeBetweenLogCompactionsMS = -1,
        IndexNumBuckets = 1 << 14,
    };

    /// <summary>An engine read: the value's length, -1 when not found, so that the read cannot be optimized away; the pooled value goes back.</summary>
    public static async ValueTask<int> ReadLengthAsync(FasterRecordStore engine, byte[] key)
    {
        (bool found, PooledBuffer value) = await engine.ReadAsync(key).ConfigureAwait(false);
        int length = found ? value.Length : -1;
        value.Return();
        return length;
    }

    /// <summary>Disposes the stores that were opened (a setup that threw leaves some null), then deletes their directory.</summary>
    public static async Task CloseAsync(string directory, params IAsyncDisposable?[] stores)
    {
        foreach (IAsyncDisposable? store in stores)
        {
            if (store is not null)
            {
                await store.DisposeAsync().ConfigureAwait(false);
            }
        }

        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>Ratio per operation: each category (and value size) is compared with its own baseline method.</summary>
    public sealed class PerOperationConfig : ManualConfig
    {
        public PerOperationConfig()
        {
            AddLogicalGroupRules(BenchmarkLogicalGroupRule.ByCategory, BenchmarkLogicalGroupRule.ByParams);
            AddColumn(BenchmarkDotNet.Columns.CategoriesColumn.Default);
        }
    }
}
