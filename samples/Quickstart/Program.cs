// Quickstart: the typed store in two parts. Run it with `dotnet run --project samples/Quickstart`.
//
// 1. A scratch store (Durability = None) with a tiny in-memory log (two 4 KB pages), so most of its records spill
//    to a segment file on disk and are read back from there. It shows upsert, read, delete (and the status each
//    returns), an atomic WriteBatch, and ReadManyAsync.
// 2. A durable store (Durability = Commit): every write completes only once it is in the store's write-ahead log
//    on disk. The store is disposed, reopened on the same directory, and what survived is printed.
//
// Both stores live in temporary directories that the program deletes at the end. Values are Order records
// (Order.cs), serialized with MessagePack; keys are strings.

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore;
using Quickstart;

string root = Path.Combine(Path.GetTempPath(), "kvstore-quickstart-" + Guid.NewGuid().ToString("N"));
try
{
    await ScratchStoreAsync(Path.Combine(root, "scratch"));
    await DurableStoreAsync(Path.Combine(root, "durable"));
}
finally
{
    // 3. Clean up. The scratch store deleted its own files on dispose (DeleteLogOnClose defaults to true);
    //    the durable store keeps its files by design, so they are removed here.
    if (Directory.Exists(root))
    {
        Directory.Delete(root, recursive: true);
    }

    Console.WriteLine($"removed {root}");
}

static async Task ScratchStoreAsync(string directory)
{
    Console.WriteLine("1. Scratch store (Durability = None), spilling to disk");
    var options = new MixedStorageKVStoreOptions
    {
        PageSizeBits = 12,         // 4 KB pages
        MemorySizeBits = 13,       // 8 KB of log in memory: two pages; older records go to disk
        SegmentSizeBits = 20,      // 1 MB segment files (the default preallocates 256 MB)
        IndexNumBuckets = 1L << 16, // a 4 MB hash index (the default is 64 MB)
        LogDirectory = directory,
        LogFileNamePrefix = "orders",
    };

    await using MixedStorageKVStore<string, Order> store = await MixedStorageKVStore<string, Order>.OpenAsync(options);

    const int Count = 2_000;
    for (int i = 0; i < Count; i++)
    {
        await store.UpsertAsync($"order-{i:D4}", new Order($"customer-{i % 50}", "widget", i % 7 + 1));
    }

    // FASTER's log: records below HeadAddress are on disk only; at most MemorySizeBits' worth stays in memory.
    var log = store.FasterKV.Log;
    Console.WriteLine($"   upserted {Count} orders: log {(log.TailAddress - log.BeginAddress) / 1024} KB, "
        + $"{(log.TailAddress - log.HeadAddress) / 1024} KB of it in memory; files: {ListFiles(directory)}");

    // order-0000 was written first, so it is on disk by now; the read fetches it from the segment file.
    (KeyStatus status, Order? order) = await store.ReadAsync("order-0000");
    Console.WriteLine($"   read order-0000: {status}, {order}");

    KeyStatus deleted = await store.DeleteAsync("order-0001");
    KeyStatus deletedAgain = await store.DeleteAsync("order-0001");
    ReadResult<Order> afterDelete = await store.ReadAsync("order-0001");
    Console.WriteLine($"   delete order-0001: {deleted}; again: {deletedAgain}; read: {afterDelete.Status}, value {afterDelete.Value?.ToString() ?? "null"}");

    // A batch applies all its writes as one step: no reader sees part of it.
    var batch = new WriteBatch<string, Order>()
        .Upsert("order-0002", new Order("customer-2", "gadget", 10))
        .Upsert("order-9999", new Order("customer-9", "gizmo", 1))
        .Delete("order-0003");
    await store.ApplyBatchAsync(batch);
    Console.WriteLine($"   applied a batch of {batch.Count} writes");

    // ReadManyAsync reads several keys as of one moment; results come back in the order of the keys.
    string[] keys = ["order-0002", "order-0003", "order-9999", "order-0004"];
    IReadOnlyList<ReadResult<Order>> results = await store.ReadManyAsync(keys);
    for (int i = 0; i < keys.Length; i++)
    {
        Console.WriteLine($"   {keys[i]}: {(results[i].Found ? results[i].Value!.ToString() : "NotFound")}");
    }
}

static async Task DurableStoreAsync(string directory)
{
    Console.WriteLine("2. Durable store (Durability = Commit), disposed and reopened");
    var options = new MixedStorageKVStoreOptions
    {
        Durability = DurabilityMode.Commit, // a write completes once its write-ahead log entry is on disk
        LogDirectory = directory,           // required: the store is recovered from this directory
        DeleteLogOnClose = false,           // required: the files are the data
        PageSizeBits = 12,
        MemorySizeBits = 16,                // 16 pages: a checkpoint with only two pages in memory stalls writers
        SegmentSizeBits = 20,
        IndexNumBuckets = 1L << 16,
    };

    await using (MixedStorageKVStore<string, Order> store = await MixedStorageKVStore<string, Order>.OpenAsync(options))
    {
        await store.UpsertAsync("order-1", new Order("alice", "widget", 3));
        await store.UpsertAsync("order-2", new Order("bob", "gadget", 1));
        await store.UpsertAsync("order-3", new Order("carol", "gizmo", 2));
        await store.DeleteAsync("order-2");
    } // disposing takes a last checkpoint and releases the files

    Console.WriteLine($"   wrote order-1..3, deleted order-2, disposed; files: {ListFiles(directory)}");

    await using (MixedStorageKVStore<string, Order> reopened = await MixedStorageKVStore<string, Order>.OpenAsync(options))
    {
        foreach (string key in new[] { "order-1", "order-2", "order-3" })
        {
            (KeyStatus status, Order? order) = await reopened.ReadAsync(key);
            Console.WriteLine($"   after reopening, {key}: {status}{(order is null ? "" : ", " + order)}");
        }
    }
}

static string ListFiles(string directory) =>
    string.Join(", ", Directory.EnumerateFileSystemEntries(directory)
        .Select(path => Directory.Exists(path) ? Path.GetFileName(path) + "/" : Path.GetFileName(path))
        .Order(StringComparer.Ordinal));
