using System;
using System.Collections.Generic;
using System.Linq;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// Every backend --backend accepts. A durability mode of the store is one more line here: a
/// <see cref="FasterBackend"/> whose <c>configure</c> sets that mode on the options, for example
/// <c>new("faster-checkpoint", "…", UsesMemorySize: true, StoresOnDisk: true, context =&gt; new FasterBackend(context, options =&gt; options.… = …))</c>.
/// </summary>
internal static class BackendCatalog
{
    public static IReadOnlyList<BackendDescriptor> All { get; } =
    [
        new("faster", "this store (FasterRecordStore), durability none: its files are deleted on close", UsesMemorySize: true, StoresOnDisk: true, context => new FasterBackend(context)),
        new("memory", "memory-only baseline: a ConcurrentDictionary of byte arrays, no engine", UsesMemorySize: false, StoresOnDisk: false, _ => new MemoryBackend()),
        new("sqlite", "SQLite (Microsoft.Data.Sqlite), one table, WAL mode, synchronous=NORMAL", UsesMemorySize: false, StoresOnDisk: true, context => new SqliteBackend(context)),
    ];

    public static BackendDescriptor? Find(string name) =>
        All.FirstOrDefault(backend => string.Equals(backend.Name, name, StringComparison.OrdinalIgnoreCase));
}
