using System;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;
using LiteDB;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// The peer a .NET user picks for an embedded document store: LiteDB 5, one <see cref="LiteDatabase"/> shared by every
/// caller (it is thread-safe), on one file in the run's directory, one collection of documents whose binary
/// <c>_id</c> is the key and whose binary field <c>v</c> is the value. A batch is one transaction: the collection's
/// <c>Upsert</c> of many documents runs in a single one, so concurrent readers see all of it or none.
/// </summary>
/// <remarks>
/// <para>
/// Durability, read from LiteDB 5.0.20's source (tag v5.0.20 of mbdavid/LiteDB): <c>TransactionService.Commit</c>
/// hands the transaction's pages to <c>DiskService.WriteAsync</c>, which only enqueues them on
/// <c>DiskWriterQueue</c>; a background task writes them to the log file (<c>-log.db</c>) and calls
/// <c>FileStream.Flush(true)</c>, an fsync, each time its queue runs empty. So a commit returns before its pages are
/// written, let alone synced: like <c>sqlite</c> (synchronous=NORMAL) and unlike <c>sqlite-full</c>, a write is not
/// durable on return, and a crash can lose the last commits. LiteDB offers no setting that makes a commit wait for its
/// sync, so there is no durable LiteDB backend and this one counts no flushes.
/// </para>
/// <para>
/// LiteDB's calls are synchronous: an operation occupies its worker's thread while it runs. Its explicit
/// transactions (<c>BeginTrans</c>) belong to the calling thread, which asynchronous callers do not keep, so batches
/// use the single-call <c>Upsert</c> of many documents instead, which LiteDB runs as one transaction of its own.
/// </para>
/// </remarks>
internal sealed class LiteDbBackend : ILoadTestBackend, IBatchWriter
{
    private const string FileName = "loadtest.litedb";
    private const string CollectionName = "kv";
    private const string ValueField = "v";

    private readonly string _directory;
    private readonly LiteDatabase _database;
    private readonly ILiteCollection<BsonDocument> _collection;

    /// <param name="context">The run's directory.</param>
    public LiteDbBackend(BackendContext context)
    {
        _directory = context.Directory;
        _database = new LiteDatabase(new ConnectionString
        {
            Filename = Path.Combine(context.Directory, FileName),
            Connection = ConnectionType.Direct, // One process, one engine instance: LiteDB's default, stated.
        });
        _collection = _database.GetCollection(CollectionName);
    }

    /// <summary>Upserts one document, its own transaction. LiteDB serializes the document before it returns.</summary>
    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value)
    {
        _collection.Upsert(Document(key, value));
        return ValueTask.CompletedTask;
    }

    /// <summary>One <c>Upsert</c> of every document, which LiteDB runs as one transaction; in order, so the last write of a key wins.</summary>
    public ValueTask WriteBatchAsync(IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> writes)
    {
        var documents = new BsonDocument[writes.Count];
        for (int i = 0; i < writes.Count; i++)
        {
            documents[i] = Document(writes[i].Key, writes[i].Value);
        }

        _collection.Upsert(documents);
        return ValueTask.CompletedTask;
    }

    /// <summary>Finds the document by its <c>_id</c>; the value is the document's binary field, copied out.</summary>
    public ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination)
    {
        BsonDocument? document = _collection.FindById(new BsonValue(WholeArray.Of(key)));
        if (document is null)
        {
            return ValueTask.FromResult(-1);
        }

        byte[] value = document[ValueField].AsBinary;
        value.AsSpan(0, Math.Min(value.Length, destination.Length)).CopyTo(destination.Span);
        return ValueTask.FromResult(value.Length);
    }

    /// <summary>LiteDB's delete by <c>_id</c>, its own transaction; it reports whether a document was removed.</summary>
    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) => ValueTask.FromResult(_collection.Delete(new BsonValue(WholeArray.Of(key))));

    /// <summary>The data file and its log file (<c>-log.db</c>), as their sizes.</summary>
    public long BytesOnDisk() => DirectorySize.Of(_directory);

    /// <summary>Closes the database; LiteDB checkpoints its log into the data file on close.</summary>
    public ValueTask DisposeAsync()
    {
        _database.Dispose();
        return ValueTask.CompletedTask;
    }

    private static BsonDocument Document(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value) => new()
    {
        ["_id"] = new BsonValue(WholeArray.Of(key)),
        [ValueField] = new BsonValue(WholeArray.Of(value)),
    };
}
