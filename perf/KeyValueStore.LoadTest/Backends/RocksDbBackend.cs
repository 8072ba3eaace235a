using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using RocksDbSharp;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// The peer LSM tree: RocksDB (the <c>RocksDB</c> package, RocksDbSharp over the native library) in a directory of the
/// run's, one default column family, default options. Its two backends differ only in <see cref="WriteOptions"/>'
/// sync flag. <c>rocksdb</c> writes the write-ahead log without syncing it (RocksDB's default): a write is in the
/// operating system's cache on return, so it survives the process crashing but not the machine, as with SQLite's
/// synchronous=NORMAL. <c>rocksdb-sync</c> sets <c>sync=true</c>: RocksDB syncs the WAL before a write returns, so
/// each write is durable on return, the peer of our Commit mode and of <c>sqlite-full</c>. A batch is one
/// <see cref="WriteBatch"/>, applied atomically by <see cref="RocksDb.Write(WriteBatch, WriteOptions)"/> and, with
/// sync, durable on return as a whole.
/// </summary>
/// <remarks>
/// RocksDB's calls are synchronous and thread-safe: an operation occupies its worker's thread while it runs.
/// Concurrent synced writes are grouped by RocksDB (one writer leads a group and syncs the WAL once for all of it), so
/// the durable flushes counted, one per synced write or batch, are the writes that waited for a sync, an upper bound on
/// the syncs RocksDB made.
/// </remarks>
internal sealed class RocksDbBackend : ILoadTestBackend, IBatchWriter, IDurableFlushCounter
{
    private const string DatabaseDirectory = "rocksdb";

    private readonly string _directory;
    private readonly bool _sync;
    private readonly RocksDb _database;
    private readonly WriteOptions _writeOptions;
    private long _syncedWrites;
    private int _disposed;

    /// <param name="context">The run's directory.</param>
    /// <param name="sync">Whether every write syncs the write-ahead log before it returns (<c>rocksdb-sync</c>).</param>
    public RocksDbBackend(BackendContext context, bool sync)
    {
        _directory = context.Directory;
        _sync = sync;
        _writeOptions = new WriteOptions().SetSync(sync);
        _database = RocksDb.Open(new DbOptions().SetCreateIfMissing(true), Path.Combine(context.Directory, DatabaseDirectory));
    }

    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value)
    {
        _database.Put(key.Span, value.Span, cf: null, _writeOptions);
        CountSyncedWrite();
        return ValueTask.CompletedTask;
    }

    /// <summary>One <see cref="WriteBatch"/> of puts, in order, written atomically; the native batch is freed after.</summary>
    public ValueTask WriteBatchAsync(IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> writes)
    {
        using var batch = new WriteBatch();
        for (int i = 0; i < writes.Count; i++)
        {
            batch.Put(writes[i].Key.Span, writes[i].Value.Span, cf: null);
        }

        _database.Write(batch, _writeOptions);
        CountSyncedWrite();
        return ValueTask.CompletedTask;
    }

    /// <summary>Reads straight into the caller's array when there is one; otherwise into a new array, then copied.</summary>
    public ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination)
    {
        if (MemoryMarshal.TryGetArray((ReadOnlyMemory<byte>)destination, out ArraySegment<byte> target))
        {
            long length = _database.Get(WholeArray.Of(key), target.Array!, target.Offset, target.Count);
            return ValueTask.FromResult(checked((int)length));
        }

        byte[]? value = _database.Get(key.Span);
        if (value is null)
        {
            return ValueTask.FromResult(-1);
        }

        value.AsSpan(0, Math.Min(value.Length, destination.Length)).CopyTo(destination.Span);
        return ValueTask.FromResult(value.Length);
    }

    /// <summary>
    /// RocksDB's delete writes a tombstone without looking for the key, so whether it had a value is asked first
    /// (<see cref="RocksDb.HasKey(ReadOnlySpan{byte}, ColumnFamilyHandle, ReadOptions)"/>). The answer is exact unless
    /// another caller writes the same key between the two calls; the benchmarks do not, and the load test never deletes.
    /// An absent key is not deleted, so it costs no write.
    /// </summary>
    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key)
    {
        if (!_database.HasKey(key.Span, cf: null, readOptions: null))
        {
            return ValueTask.FromResult(false);
        }

        _database.Remove(key.Span, cf: null, _writeOptions);
        CountSyncedWrite();
        return ValueTask.FromResult(true);
    }

    /// <summary>The database directory: SST files, the write-ahead log, the manifest and RocksDB's info log.</summary>
    public long BytesOnDisk() => DirectorySize.Of(_directory);

    /// <summary>Gets the writes and batches that returned after a WAL sync; null for <c>rocksdb</c>, whose writes do not sync.</summary>
    public long? DurableFlushes => _sync ? Interlocked.Read(ref _syncedWrites) : null;

    public string FlushNote =>
        "a write or batch with WriteOptions sync=true, which RocksDB returns only after syncing its write-ahead log (concurrent writers may share one sync): writes counted, not fsyncs measured";

    /// <summary>Closes the database, freeing its native handle; idempotent.</summary>
    public ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _database.Dispose();
        }

        return ValueTask.CompletedTask;
    }

    private void CountSyncedWrite()
    {
        if (_sync)
        {
            Interlocked.Increment(ref _syncedWrites);
        }
    }
}
