using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Data;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Data.Sqlite;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// The peer: SQLite through Microsoft.Data.Sqlite, one table <c>kv (key BLOB PRIMARY KEY, value BLOB)</c>
/// in WAL mode, each upsert its own transaction (autocommit). The synchronous level is the one difference
/// between its two backends: <c>sqlite</c> runs <c>synchronous=NORMAL</c>, which like the <c>faster</c>
/// backend does not make a write durable on return (a crash may lose the last commits, never corrupt the
/// file); <c>sqlite-full</c> runs <c>synchronous=FULL</c>, with which SQLite syncs the WAL at every commit,
/// so each upsert is durable on return: the peer of <c>faster-commit</c>. A batch (--batch-size) is one
/// transaction of upserts on the same connection and prepared statement, durable on return with FULL.
/// </summary>
/// <remarks>
/// Concurrency as an application would set it up: reads run in parallel, each on a connection from a
/// pool (one per concurrent reader, each with its own prepared statement); writes go through one
/// connection, one at a time, queued on an asynchronous lock. SQLite allows one writer at a time
/// anyway, and writers competing on separate connections would wait in SQLite's busy handler, which
/// sleeps in whole milliseconds. Microsoft.Data.Sqlite's calls are synchronous: an operation occupies
/// its worker's thread while it runs.
/// <para>
/// With <c>synchronous=FULL</c> the backend counts its committed transactions (upserts, batches) as its durable flushes
/// (<see cref="IDurableFlushCounter"/>): that each commit syncs the WAL is SQLite's documented behaviour
/// (https://sqlite.org/pragma.html#pragma_synchronous), not something the count observes.
/// </para>
/// </remarks>
internal sealed class SqliteBackend : ILoadTestBackend, IDurableFlushCounter, IBatchWriter
{
    private const string FileName = "loadtest.db";

    private readonly string _directory;
    private readonly SqliteSynchronous _synchronous;
    private readonly string _connectionString;
    private readonly SemaphoreSlim _writeLock = new(1, 1);
    private readonly SqliteConnection _writer;
    private readonly SqliteCommand _upsert;
    private readonly SqliteParameter _upsertKey;
    private readonly SqliteParameter _upsertValue;
    private readonly SqliteCommand _delete;
    private readonly SqliteParameter _deleteKey;
    private readonly ConcurrentBag<Reader> _readers = [];
    private readonly ConcurrentBag<Reader> _allReaders = [];
    private long _commits;

    /// <param name="context">The run's directory.</param>
    /// <param name="synchronous">SQLite's synchronous level for the writes: NORMAL for <c>sqlite</c>, FULL for <c>sqlite-full</c>.</param>
    public SqliteBackend(BackendContext context, SqliteSynchronous synchronous)
    {
        _directory = context.Directory;
        _synchronous = synchronous;
        _connectionString = new SqliteConnectionStringBuilder
        {
            DataSource = Path.Combine(context.Directory, FileName),
            Mode = SqliteOpenMode.ReadWriteCreate,
            Pooling = false, // The backend keeps its own connections open for the whole run.
        }.ToString();

        _writer = Open(_connectionString);
        Execute(_writer, "PRAGMA journal_mode=WAL;");
        Execute(_writer, synchronous switch
        {
            SqliteSynchronous.Normal => "PRAGMA synchronous=NORMAL;",
            SqliteSynchronous.Full => "PRAGMA synchronous=FULL;",
            _ => throw new ArgumentOutOfRangeException(nameof(synchronous), synchronous, "Only NORMAL and FULL are offered."),
        });
        Execute(_writer, "CREATE TABLE IF NOT EXISTS kv (key BLOB PRIMARY KEY, value BLOB NOT NULL);");
        _upsert = _writer.CreateCommand();
        _upsert.CommandText = "INSERT INTO kv (key, value) VALUES ($key, $value) ON CONFLICT (key) DO UPDATE SET value = excluded.value;";
        _upsertKey = _upsert.Parameters.Add("$key", SqliteType.Blob);
        _upsertValue = _upsert.Parameters.Add("$value", SqliteType.Blob);
        _upsert.Prepare();
        _delete = _writer.CreateCommand();
        _delete.CommandText = "DELETE FROM kv WHERE key = $key;";
        _deleteKey = _delete.Parameters.Add("$key", SqliteType.Blob);
        _delete.Prepare();
    }

    public async ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value)
    {
        await _writeLock.WaitAsync().ConfigureAwait(false);
        try
        {
            _upsertKey.Value = WholeArray.Of(key);
            _upsertValue.Value = WholeArray.Of(value);
            _upsert.ExecuteNonQuery();
            Interlocked.Increment(ref _commits); // Autocommit: the statement returned, so its transaction committed.
        }
        finally
        {
            _writeLock.Release();
        }
    }

    /// <summary>BEGIN, one execution of the prepared upsert per write, COMMIT; any failure rolls the whole batch back.</summary>
    public async ValueTask WriteBatchAsync(IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> writes)
    {
        await _writeLock.WaitAsync().ConfigureAwait(false);
        try
        {
            // Microsoft.Data.Sqlite runs a command inside a transaction only when the command names it; the
            // statement stays prepared across the change.
            using SqliteTransaction transaction = _writer.BeginTransaction();
            _upsert.Transaction = transaction;
            try
            {
                for (int i = 0; i < writes.Count; i++)
                {
                    _upsertKey.Value = WholeArray.Of(writes[i].Key);
                    _upsertValue.Value = WholeArray.Of(writes[i].Value);
                    _upsert.ExecuteNonQuery();
                }

                transaction.Commit();
            }
            finally
            {
                _upsert.Transaction = null;
            }

            Interlocked.Increment(ref _commits);
        }
        finally
        {
            _writeLock.Release();
        }
    }

    /// <summary>A prepared <c>DELETE</c> on the writer connection, its own transaction: true when it removed a row.</summary>
    public async ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key)
    {
        await _writeLock.WaitAsync().ConfigureAwait(false);
        try
        {
            _deleteKey.Value = WholeArray.Of(key);
            bool removed = _delete.ExecuteNonQuery() > 0;
            if (removed)
            {
                // A delete that matched no row changed no page, so its commit writes nothing to the WAL: counted only when it did.
                Interlocked.Increment(ref _commits);
            }

            return removed;
        }
        finally
        {
            _writeLock.Release();
        }
    }

    public ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination)
    {
        if (!_readers.TryTake(out Reader? reader))
        {
            reader = new Reader(_connectionString);
            _allReaders.Add(reader);
        }

        try
        {
            return ValueTask.FromResult(reader.Read(WholeArray.Of(key), destination));
        }
        finally
        {
            _readers.Add(reader);
        }
    }

    public long BytesOnDisk() => DirectorySize.Of(_directory);

    /// <summary>Gets the transactions committed (one per upsert, delete or batch); null with synchronous=NORMAL, whose commits do not sync.</summary>
    public long? DurableFlushes => _synchronous == SqliteSynchronous.Full ? Interlocked.Read(ref _commits) : null;

    public string FlushNote =>
        "a committed transaction (one per upsert, or per batch with --batch-size); with WAL and synchronous=FULL SQLite syncs the WAL at each commit, per its documentation: commits counted, not fsyncs measured";

    /// <summary>
    /// The synchronous level the write connection really runs with, as <c>PRAGMA synchronous</c> reports it
    /// (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA). The setting is per connection, so only this connection can tell.
    /// </summary>
    public long QuerySynchronous()
    {
        _writeLock.Wait();
        try
        {
            using SqliteCommand command = _writer.CreateCommand();
            command.CommandText = "PRAGMA synchronous;";
            return (long)command.ExecuteScalar()!;
        }
        finally
        {
            _writeLock.Release();
        }
    }

    public ValueTask DisposeAsync()
    {
        foreach (Reader reader in _allReaders)
        {
            reader.Dispose();
        }

        _upsert.Dispose();
        _delete.Dispose();
        _writer.Dispose();
        _writeLock.Dispose();
        return ValueTask.CompletedTask;
    }

    private static SqliteConnection Open(string connectionString)
    {
        var connection = new SqliteConnection(connectionString);
        connection.Open();

        // Readers can meet a lock briefly while the writer checkpoints the WAL: wait inside SQLite, not fail.
        Execute(connection, "PRAGMA busy_timeout=10000;");
        return connection;
    }

    private static void Execute(SqliteConnection connection, string sql)
    {
        using SqliteCommand command = connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    /// <summary>A read connection with its prepared select; used by one caller at a time.</summary>
    private sealed class Reader : IDisposable
    {
        private readonly SqliteConnection _connection;
        private readonly SqliteCommand _select;
        private readonly SqliteParameter _key;

        public Reader(string connectionString)
        {
            _connection = Open(connectionString);
            _select = _connection.CreateCommand();
            _select.CommandText = "SELECT value FROM kv WHERE key = $key;";
            _key = _select.Parameters.Add("$key", SqliteType.Blob);
            _select.Prepare();
        }

        public int Read(byte[] key, Memory<byte> destination)
        {
            _key.Value = key;
            using SqliteDataReader row = _select.ExecuteReader(CommandBehavior.SingleRow);
            if (!row.Read())
            {
                return -1;
            }

            int length = checked((int)row.GetBytes(0, 0, null, 0, 0));
            int copied = Math.Min(length, destination.Length);
            if (MemoryMarshal.TryGetArray((ReadOnlyMemory<byte>)destination, out ArraySegment<byte> target))
            {
                row.GetBytes(0, 0, target.Array, target.Offset, copied);
            }
            else
            {
                row.GetFieldValue<byte[]>(0).AsSpan(0, copied).CopyTo(destination.Span);
            }

            return length;
        }

        public void Dispose()
        {
            _select.Dispose();
            _connection.Dispose();
        }
    }
}
