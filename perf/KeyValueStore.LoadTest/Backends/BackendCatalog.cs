using System;
using System.Collections.Generic;
using System.Linq;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// Every backend --backend accepts; the first, <c>typed</c>, is the default, so a run with no options measures the
/// store as users call it. The <c>faster</c> backends drive the engine under it, for comparison; <c>raw-faster</c> is FASTER
/// with nothing of ours, the engine's ceiling; the rest are the stores a .NET user would pick instead, each through its
/// own adapter, and each line's description says how durable its writes are. <c>garnet</c> and <c>redis</c> are this
/// store's networked twin (<see cref="RedisStoreBackend"/>), measured with the same workloads as <c>typed</c>. A durability mode of the store is one more line here: a
/// <see cref="FasterBackend"/> whose <c>configure</c> sets that mode on the options, for example
/// <c>new("faster-checkpoint", "…", UsesMemorySize: true, StoresOnDisk: true, context =&gt; new FasterBackend(context, options =&gt; options.… = …))</c>.
/// </summary>
internal static class BackendCatalog
{
    public static IReadOnlyList<BackendDescriptor> All { get; } =
    [
        new("typed", "this store's public API, MixedStorageKVStore<long, byte[]> (MessagePack keys and values), durability none: its files are deleted on close", UsesMemorySize: true, StoresOnDisk: true, context => new TypedBackend(context)),
        new("typed-checkpoint", "the public API, durability Checkpoint: checkpoints every 5 s and on close", UsesMemorySize: true, StoresOnDisk: true, context => new TypedBackend(context, Durable(DurabilityMode.Checkpoint, context))),
        new("typed-commit", "the public API, durability Commit: each upsert completes once it is on disk (group commit)", UsesMemorySize: true, StoresOnDisk: true, context => new TypedBackend(context, Durable(DurabilityMode.Commit, context)), KeepsWriteAheadLog: true),
        new("faster", "the engine under it (FasterRecordStore, byte keys and values), durability none: its files are deleted on close", UsesMemorySize: true, StoresOnDisk: true, context => new FasterBackend(context)),
        new("faster-checkpoint", "the engine, durability Checkpoint: checkpoints every 5 s and on close; a crash loses at most the writes since the last one", UsesMemorySize: true, StoresOnDisk: true, context => new FasterBackend(context, Durable(DurabilityMode.Checkpoint, context))),
        new("faster-commit", "the engine, durability Commit: each upsert completes once it is on disk (group commit)", UsesMemorySize: true, StoresOnDisk: true, context => new FasterBackend(context, Durable(DurabilityMode.Commit, context)), KeepsWriteAheadLog: true),
        new("memory", "memory-only baseline: a ConcurrentDictionary of byte arrays, no engine", UsesMemorySize: false, StoresOnDisk: false, _ => new MemoryBackend()),
        new("sqlite", "SQLite (Microsoft.Data.Sqlite), one table, WAL mode, synchronous=NORMAL", UsesMemorySize: false, StoresOnDisk: true, context => new SqliteBackend(context, SqliteSynchronous.Normal)),
        new("sqlite-full", "SQLite (Microsoft.Data.Sqlite), one table, WAL mode, synchronous=FULL: each upsert is its own transaction, durable on return (the WAL synced at every commit)", UsesMemorySize: false, StoresOnDisk: true, context => new SqliteBackend(context, SqliteSynchronous.Full)),
        new("litedb", "LiteDB 5, one collection of documents (binary _id and value); a commit returns before a background writer writes and syncs it", UsesMemorySize: false, StoresOnDisk: true, context => new LiteDbBackend(context)),
        new("rocksdb", "RocksDB, default options, write-ahead log written but not synced per write (like SQLite synchronous=NORMAL)", UsesMemorySize: false, StoresOnDisk: true, context => new RocksDbBackend(context, sync: false)),
        new("rocksdb-sync", "RocksDB with WriteOptions sync=true: each write durable on return (the WAL synced, concurrent writers grouped)", UsesMemorySize: false, StoresOnDisk: true, context => new RocksDbBackend(context, sync: true)),
        new("zonetree", "ZoneTree 2 (byte[] keys and values), default AsyncCompressed write-ahead log: queued for a background writer, no sync; no batches", UsesMemorySize: false, StoresOnDisk: true, context => new ZoneTreeBackend(context)),
        new("raw-faster", "FASTER 2.6.5's FasterKV<SpanByte, SpanByte> used directly, the faster backend's log sizes, durability none: the ceiling for the engine; no batches", UsesMemorySize: true, StoresOnDisk: true, context => new RawFasterBackend(context)),
        new("garnet", "the Redis package's RedisKVStore<long, byte[]> (typed's types and bytes) on a Garnet 2.2.8 server started in this process, over loopback TCP; no storage tier, so all in memory (bytes on disk 0), its log memory sized to hold every record twice (at least 256m); batches are MULTI/EXEC", UsesMemorySize: false, StoresOnDisk: false, RedisStoreBackend.OnInProcessGarnet),
        new("redis", "the same RedisKVStore<long, byte[]> on a server already running at --endpoint (Redis, Garnet, Valkey...), durable as that server is configured; keys under a fresh prefix loadtest-<guid>:, deleted after the run", UsesMemorySize: false, StoresOnDisk: false, RedisStoreBackend.OnServer, NeedsEndpoint: true),
    ];

    /// <summary>Gets the backend a run without --backend measures: <c>typed</c>, the public API.</summary>
    public static BackendDescriptor Default => All[0];

    public static BackendDescriptor? Find(string name) =>
        All.FirstOrDefault(backend => string.Equals(backend.Name, name, StringComparison.OrdinalIgnoreCase));

    /// <summary>The options that make the store durable; the run's directory is removed afterwards all the same.</summary>
    private static Action<MixedStorageKVStoreOptions> Durable(DurabilityMode mode, BackendContext context) => options =>
    {
        options.Durability = mode;
        options.DeleteLogOnClose = false;
        options.WriteAheadLogDirectory = mode == DurabilityMode.Commit ? context.WriteAheadLogDirectory : null;
    };
}
