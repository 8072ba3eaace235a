using System.Collections.Generic;
using System.Linq;
using KeyValueStore.LoadTest.Backends;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// The stores each workload compares, by the load test's catalog names (<see cref="BackendCatalog"/>). A name the
/// catalog does not have (a peer not yet added, for example) is left out, so the suite runs on whatever the catalog
/// offers. Ours come first: <c>typed</c> is every table's reference.
/// </summary>
internal static class StoreNames
{
    /// <summary>Ours with durability none: the reference every ratio is taken against.</summary>
    public const string Ours = "typed";

    /// <summary>
    /// Stores that keep data without a sync per write: ours, the raw engine, the memory ceiling and the non-durable
    /// peers; LiteDB is not among them (see <see cref="SlowWriters"/>).
    /// </summary>
    public static IEnumerable<string> NonDurable() =>
        Existing(Ours, "typed-checkpoint", "raw-faster", "memory", "sqlite", "rocksdb", "zonetree");

    /// <summary>
    /// The same stores and LiteDB: for workloads that do not time single writes one after another, which LiteDB, syncing
    /// its log after every single-write transaction, does at about a thousand per second here.
    /// </summary>
    public static IEnumerable<string> NonDurableWithLiteDb() => NonDurable().Concat(Existing("litedb"));

    /// <summary>The stores at the smaller counts LiteDB can finish: LiteDB, with ours and SQLite beside it as references.</summary>
    public static IEnumerable<string> SlowWriters() => Existing(Ours, "sqlite", "litedb");

    /// <summary>Stores whose write is durable when it completes: ours in Commit mode and the peers' synchronous modes.</summary>
    public static IEnumerable<string> Durable() =>
        Existing("typed-commit", "sqlite-full", "rocksdb-sync", "litedb");

    /// <summary>The LLFIO durable variant: ours in Commit mode against SQLite FULL and RocksDB with synced writes.</summary>
    public static IEnumerable<string> LlfioDurable() => Existing("typed-commit", "sqlite-full", "rocksdb-sync");

    /// <summary>The Jering comparison: ours and the disk-based peers (and the ceilings), without per-write syncs.</summary>
    public static IEnumerable<string> JeringPeers() =>
        Existing(Ours, "raw-faster", "memory", "sqlite", "rocksdb", "zonetree");

    private static IEnumerable<string> Existing(params string[] names) => names.Where(name => BackendCatalog.Find(name) is not null);
}
