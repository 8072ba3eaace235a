using System;
using System.IO;
using System.Threading.Tasks;
using ZoneTree;
using ZoneTree.Comparers;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// The pure-.NET LSM tree: ZoneTree 2.1.3, a <c>ZoneTree&lt;byte[], byte[]&gt;</c> ordered by
/// <see cref="BytesLexicographicComparerAscending"/>, its data directory in the run's, with a maintainer that moves
/// full in-memory segments to disk and merges them in the background, as ZoneTree's documentation has an application
/// run it. Upserts, reads and deletes are the tree's own, safe for concurrent callers.
/// </summary>
/// <remarks>
/// <para>
/// Durability: the write-ahead log mode is ZoneTree's default for an ordinary tree, <c>AsyncCompressed</c> (the
/// factory's <c>WriteAheadLogOptions.WriteAheadLogMode</c> reads so, and the package's README says ordinary trees
/// default to it). A background writer serializes, compresses and appends the records to the log; ZoneTree's README
/// states that ordinary writes request no disk sync, and that a write which must survive power loss needs an awaited
/// <c>SyncWALAsync</c>. So a write is in the writer's queue on return: not durable, and less so than <c>rocksdb</c>'s,
/// since a crash of the process, not only of the machine, can lose the last writes. No flushes are counted.
/// </para>
/// <para>
/// No batches (<see cref="IBatchWriter"/> is not implemented, so <c>--batch-size</c> above 1 is refused for it): an
/// ordinary ZoneTree applies each upsert on its own and has no write of several keys that readers see whole. Its
/// atomic multi-key writes are transactions of the transactional tree, a different store (versioned records,
/// optimistic transactions, a shared write-ahead log) whose single writes would no longer be the ones a user of the
/// ordinary tree measures.
/// </para>
/// <para>
/// ZoneTree keeps the arrays it is given in its in-memory segment, so keys and values are copied before they go in. For
/// byte-array values, ZoneTree's default deletion marker is the empty array: an empty value reads as absent. The load
/// test's values are never empty.
/// </para>
/// </remarks>
internal sealed class ZoneTreeBackend : ILoadTestBackend
{
    private const string DataDirectory = "zonetree";

    private readonly string _directory;
    private readonly IZoneTree<byte[], byte[]> _tree;
    private readonly IMaintainer _maintainer;
    private bool _disposed;

    /// <param name="context">The run's directory.</param>
    public ZoneTreeBackend(BackendContext context)
    {
        _directory = context.Directory;
        _tree = new ZoneTreeFactory<byte[], byte[]>()
            .SetComparer(new BytesLexicographicComparerAscending())
            .SetDataDirectory(Path.Combine(context.Directory, DataDirectory))
            .OpenOrCreate();
        _maintainer = _tree.CreateMaintainer();
        _maintainer.EnableJobForCleaningInactiveCaches = true;
    }

    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value)
    {
        byte[] storedKey = key.ToArray();
        byte[] storedValue = value.ToArray();
        _tree.Upsert(in storedKey, in storedValue);
        return ValueTask.CompletedTask;
    }

    public ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination)
    {
        byte[] lookup = WholeArray.Of(key);
        if (!_tree.TryGet(in lookup, out byte[] value))
        {
            return ValueTask.FromResult(-1);
        }

        value.AsSpan(0, Math.Min(value.Length, destination.Length)).CopyTo(destination.Span);
        return ValueTask.FromResult(value.Length);
    }

    /// <summary>ZoneTree's <c>TryDelete</c>, which reports whether the key had a value.</summary>
    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key)
    {
        byte[] lookup = WholeArray.Of(key);
        return ValueTask.FromResult(_tree.TryDelete(in lookup, out _));
    }

    /// <summary>The write-ahead log's files, the disk segments and the tree's metadata, as their sizes.</summary>
    public long BytesOnDisk() => DirectorySize.Of(_directory);

    /// <summary>Lets the maintainer's background merges finish, then closes the tree; idempotent.</summary>
    public ValueTask DisposeAsync()
    {
        if (!_disposed)
        {
            _disposed = true;
            _maintainer.WaitForBackgroundThreads();
            _maintainer.Dispose();
            _tree.Dispose();
        }

        return ValueTask.CompletedTask;
    }
}
