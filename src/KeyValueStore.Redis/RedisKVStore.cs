using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Diagnostics;
using StackExchange.Redis;
using StackExchange.Redis.KeyspaceIsolation;

namespace KeyValueStore.Redis;

/// <summary>
/// <see cref="IMixedStorageKVStore{TKey, TValue}"/> over Garnet or any Redis server: each record is one string key
/// holding the same bytes <see cref="MixedStorageKVStore{TKey, TValue}"/> stores (<see cref="RecordSerializer{TKey, TValue}"/>),
/// under <see cref="RedisKVStoreOptions.KeyPrefix"/>. Safe for any number of concurrent callers.
/// </summary>
/// <remarks>
/// <para>
/// Each operation is one round trip: upsert is <c>SET</c>, read <c>GET</c>, delete <c>DEL</c> (found when it removed a
/// key); <c>ApplyBatchAsync</c> is one <c>MULTI</c>/<c>EXEC</c> of <c>SET</c>s and <c>DEL</c>s, and <c>ReadManyAsync</c> an
/// <c>MGET</c> inside <c>MULTI</c>/<c>EXEC</c>: Garnet runs the commands of different connections in parallel, and a
/// transaction is the unit it isolates from other writers, so the read sees no batch in part. <c>UpdateManyAsync</c> reads, runs the update, and commits only if no key changed since the read
/// (<c>WATCH</c>), trying again otherwise up to <see cref="RedisKVStoreOptions.MaxUpdateAttempts"/> times.
/// </para>
/// <para>
/// What survives a crash is the server's business (Garnet's AOF and checkpoints, Redis' AOF and RDB):
/// <see cref="CheckpointAsync"/> throws <see cref="NotSupportedException"/> rather than promise what it cannot, and
/// <see cref="CompactAsync"/> does nothing, the server compacting its own storage. docs/scale-out.md lists every difference.
/// </para>
/// <para>
/// Cancellation: a token is honoured until the command is sent. After that a write runs to the end, and a read stops
/// waiting for its answer.
/// </para>
/// <para>
/// Each operation is counted and timed on the embedded store's instruments (<see cref="RedisKVStoreOptions.MeterFactory"/>).
/// </para>
/// </remarks>
/// <typeparam name="TKey">The key type; MessagePack must be able to serialize it.</typeparam>
/// <typeparam name="TValue">The value type; MessagePack must be able to serialize it.</typeparam>
public sealed class RedisKVStore<TKey, TValue> : IMixedStorageKVStore<TKey, TValue>
{
    /// <summary>The longest pause between two attempts of an update that lost to another writer.</summary>
    private const int MaxBackoffMilliseconds = 100;

    private readonly IConnectionMultiplexer _connection;
    private readonly bool _ownsConnection;
    private readonly IDatabase _database;
    private readonly RecordSerializer<TKey, TValue> _serializer;
    private readonly int _readRetries;
    private readonly int _maxUpdateAttempts;
    private readonly RedisStoreMetrics _metrics;
    private int _disposed;

    /// <summary>Creates a store over a connection the caller owns (and disposes after the store).</summary>
    /// <param name="connection">The connection to the server, e.g. the application's shared <see cref="ConnectionMultiplexer"/>.</param>
    /// <param name="options">The options (<see cref="RedisKVStoreOptions.Configuration"/> is not used); the defaults when null.</param>
    /// <exception cref="ArgumentNullException"><paramref name="connection"/> is null.</exception>
    /// <exception cref="InvalidStoreOptionsException">The options are invalid; every problem is listed.</exception>
    /// <exception cref="SerializationFailedException">MessagePack cannot serialize <typeparamref name="TKey"/> or <typeparamref name="TValue"/>.</exception>
    public RedisKVStore(IConnectionMultiplexer connection, RedisKVStoreOptions? options = null)
        : this(connection, options ??= new RedisKVStoreOptions(), SerializerFor(options, needsConfiguration: false).Serializer, ownsConnection: false)
    {
    }

    private RedisKVStore(IConnectionMultiplexer connection, RedisKVStoreOptions options, RecordSerializer<TKey, TValue> serializer, bool ownsConnection)
    {
        ArgumentNullException.ThrowIfNull(connection);
        _serializer = serializer;
        _connection = connection;
        _ownsConnection = ownsConnection;
        IDatabase database = connection.GetDatabase(options.Database);
        _database = options.KeyPrefix.Length == 0 ? database : database.WithKeyPrefix(options.KeyPrefix);
        _readRetries = options.ReadRetries;
        _maxUpdateAttempts = options.MaxUpdateAttempts;
        _metrics = new RedisStoreMetrics(options.MeterFactory, options.KeyPrefix, () => serializer.ValueCompression);
    }

    /// <summary>Connects to the server <see cref="RedisKVStoreOptions.Configuration"/> names and creates a store that owns the connection.</summary>
    /// <param name="options">The options; <see cref="RedisKVStoreOptions.Configuration"/> is required.</param>
    /// <param name="cancellationToken">Stops waiting for the connection; the attempt is then abandoned and closed.</param>
    /// <returns>The store; disposing it closes the connection.</returns>
    /// <exception cref="InvalidStoreOptionsException">The options are invalid (the configuration string too); every problem is listed.</exception>
    /// <exception cref="SerializationFailedException">MessagePack cannot serialize <typeparamref name="TKey"/> or <typeparamref name="TValue"/>.</exception>
    /// <exception cref="StoreUnavailableException">The server could not be reached and the configuration says <c>abortConnect=true</c> (the default).</exception>
    public static async Task<RedisKVStore<TKey, TValue>> ConnectAsync(RedisKVStoreOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        (ConfigurationOptions? configuration, RecordSerializer<TKey, TValue> serializer) = SerializerFor(options, needsConfiguration: true);
        Task<ConnectionMultiplexer> connecting = ConnectionMultiplexer.ConnectAsync(configuration!);
        ConnectionMultiplexer connection;
        try
        {
            connection = await connecting.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            _ = connecting.ContinueWith(static attempt => attempt.Result.Dispose(), CancellationToken.None, TaskContinuationOptions.OnlyOnRanToCompletion, TaskScheduler.Default);
            throw;
        }
        catch (Exception e) when (RedisFailures.IsUnavailable(e))
        {
            throw new StoreUnavailableException("connect", writeMayHaveApplied: false, e);
        }

        return new RedisKVStore<TKey, TValue>(connection, options, serializer, ownsConnection: true);
    }

    /// <summary>Checks the options (every problem at once) and builds the serializer, before anything connects.</summary>
    private static (ConfigurationOptions? Configuration, RecordSerializer<TKey, TValue> Serializer) SerializerFor(RedisKVStoreOptions options, bool needsConfiguration) =>
        (RedisKVStoreOptionsValidator.Validate(options, needsConfiguration),
         new RecordSerializer<TKey, TValue>(options.MessagePackSerializerOptions, options.ValueCompressionThresholdBytes, options.MaxValueBytes));

    /// <summary>Gets the connection the store runs on.</summary>
    public IConnectionMultiplexer Connection => _connection;

    /// <inheritdoc/>
    public async ValueTask UpsertAsync(TKey key, TValue value, CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        long started = _metrics.Operations.Start();
        string outcome = Outcome.Error;
        try
        {
            RedisKey redisKey = _serializer.SerializeKey(key);
            RedisValue stored = _serializer.SerializeValue(value);
            cancellationToken.ThrowIfCancellationRequested();
            await WriteAsync("upsert", () => _database.StringSetAsync(redisKey, stored)).ConfigureAwait(false);
            outcome = Outcome.Ok;
        }
        finally
        {
            _metrics.Operations.End(Operation.Upsert, outcome, started);
        }
    }

    /// <inheritdoc/>
    public async ValueTask<ReadResult<TValue>> ReadAsync(TKey key, CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        long started = _metrics.Operations.Start();
        string outcome = Outcome.Error;
        try
        {
            RedisKey redisKey = _serializer.SerializeKey(key);
            RedisValue stored = await ReadAsync("read", () => _database.StringGetAsync(redisKey), cancellationToken).ConfigureAwait(false);
            ReadResult<TValue> result = Decode(stored);
            outcome = result.Status == KeyStatus.Found ? Outcome.Ok : Outcome.NotFound;
            return result;
        }
        finally
        {
            _metrics.Operations.End(Operation.Read, outcome, started);
        }
    }

    /// <inheritdoc/>
    public async ValueTask<KeyStatus> DeleteAsync(TKey key, CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        long started = _metrics.Operations.Start();
        string outcome = Outcome.Error;
        try
        {
            RedisKey redisKey = _serializer.SerializeKey(key);
            cancellationToken.ThrowIfCancellationRequested();
            bool deleted = await WriteAsync("delete", () => _database.KeyDeleteAsync(redisKey)).ConfigureAwait(false);
            outcome = deleted ? Outcome.Ok : Outcome.NotFound;
            return deleted ? KeyStatus.Found : KeyStatus.NotFound;
        }
        finally
        {
            _metrics.Operations.End(Operation.Delete, outcome, started);
        }
    }

    /// <inheritdoc/>
    public async ValueTask ApplyBatchAsync(WriteBatch<TKey, TValue> batch, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ThrowIfDisposed();
        long started = _metrics.Operations.Start();
        string outcome = Outcome.Error;
        try
        {
            if (batch.Count > 0)
            {
                EncodedWrite[] writes = Encode(batch);
                cancellationToken.ThrowIfCancellationRequested();
                await WriteAsync("batch", () => CommitAsync(writes, conditions: null)).ConfigureAwait(false);
            }

            outcome = Outcome.Ok;
        }
        finally
        {
            _metrics.Operations.End(Operation.Batch, outcome, started);
        }
    }

    /// <inheritdoc/>
    public async ValueTask<IReadOnlyList<ReadResult<TValue>>> ReadManyAsync(IReadOnlyList<TKey> keys, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(keys);
        ThrowIfDisposed();
        long started = _metrics.Operations.Start();
        string outcome = Outcome.Error;
        try
        {
            RedisKey[] redisKeys = EncodeKeys(keys);
            RedisValue[] stored = redisKeys.Length == 0
                ? []
                : await ReadAsync("read-many", () => ReadTogetherAsync(redisKeys), cancellationToken).ConfigureAwait(false);
            ReadResult<TValue>[] results = Array.ConvertAll(stored, Decode);
            outcome = Outcome.Ok;
            return results;
        }
        finally
        {
            _metrics.Operations.End(Operation.ReadMany, outcome, started);
        }
    }

    /// <inheritdoc/>
    /// <exception cref="UpdateContendedException">Other writers changed the keys between the read and the commit on every attempt; nothing was written.</exception>
    public async ValueTask UpdateManyAsync(
        IReadOnlyList<TKey> keys,
        Action<IReadOnlyList<ReadResult<TValue>>, WriteBatch<TKey, TValue>> update,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(keys);
        ArgumentNullException.ThrowIfNull(update);
        ThrowIfDisposed();
        long started = _metrics.Operations.Start();
        string outcome = Outcome.Error;
        try
        {
            await UpdateUntilUncontendedAsync(keys, update, cancellationToken).ConfigureAwait(false);
            outcome = Outcome.Ok;
        }
        finally
        {
            _metrics.Operations.End(Operation.UpdateMany, outcome, started);
        }
    }

    /// <summary>Reads, updates and commits if no key changed meanwhile, up to <see cref="RedisKVStoreOptions.MaxUpdateAttempts"/> times (see <see cref="UpdateManyAsync"/>).</summary>
    private async Task UpdateUntilUncontendedAsync(
        IReadOnlyList<TKey> keys,
        Action<IReadOnlyList<ReadResult<TValue>>, WriteBatch<TKey, TValue>> update,
        CancellationToken cancellationToken)
    {
        RedisKey[] redisKeys = EncodeKeys(keys);
        var readable = new HashSet<RedisKey>(redisKeys);
        for (int attempt = 1; attempt <= _maxUpdateAttempts; attempt++)
        {
            RedisValue[] current = redisKeys.Length == 0
                ? []
                : await ReadAsync("update-many", () => ReadTogetherAsync(redisKeys), cancellationToken).ConfigureAwait(false);
            var batch = new WriteBatch<TKey, TValue>();
            update(Array.ConvertAll(current, Decode), batch);
            EncodedWrite[] writes = Encode(batch);
            if (writes.Any(write => !readable.Contains(write.Key)))
            {
                throw new ArgumentException(
                    "The update wrote a key it was not given to read, so nothing was written: add every key the update may write to the keys of the call.",
                    nameof(update));
            }

            if (writes.Length == 0)
            {
                return;
            }

            cancellationToken.ThrowIfCancellationRequested();
            Condition[] unchanged = new Condition[redisKeys.Length];
            for (int i = 0; i < redisKeys.Length; i++)
            {
                unchanged[i] = current[i].IsNull ? Condition.KeyNotExists(redisKeys[i]) : Condition.StringEqual(redisKeys[i], current[i]);
            }

            if (await WriteAsync("update-many", () => CommitAsync(writes, unchanged)).ConfigureAwait(false))
            {
                return;
            }

            // Another writer won this round. Waiting a random while, longer each round, spreads the contenders out: without
            // it, eight callers updating one key all read, all but one fail, and all read again at once.
            await Task.Delay(Random.Shared.Next(0, Math.Min(1 << attempt, MaxBackoffMilliseconds)), cancellationToken).ConfigureAwait(false);
        }

        throw new UpdateContendedException(_maxUpdateAttempts);
    }

    /// <summary>Does nothing: the server compacts its own storage (Garnet's <c>--compaction-*</c> settings, Redis' AOF rewrite).</summary>
    /// <returns>A summary that says nothing was compacted.</returns>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    public ValueTask<CompactionSummary> CompactAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        return ValueTask.FromResult(new CompactionSummary(Compacted: false, LogBytesBefore: 0, LogBytesAfter: 0, DiskBytesFreed: 0));
    }

    /// <summary>Not supported: what survives a crash is the server's configuration (docs/scale-out.md), which a client cannot promise.</summary>
    /// <exception cref="NotSupportedException">Always, unless the store has been disposed.</exception>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    public ValueTask CheckpointAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        throw new NotSupportedException(
            "A store over Redis or Garnet cannot take a checkpoint: what survives a crash is decided by the server's "
            + "persistence (Garnet: --aof with --aof-commit-freq, or --checkpointdir with periodic checkpoints; Redis: appendonly "
            + "and appendfsync). Configure the server, and do not call CheckpointAsync on this store (docs/scale-out.md).");
    }

    /// <summary>Disposes the store, its own meter, and the connection if the store made it. Idempotent.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _metrics.Dispose();
            if (_ownsConnection)
            {
                await _connection.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    /// <summary>Disposes the store synchronously; see <see cref="DisposeAsync"/>.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            _metrics.Dispose();
            if (_ownsConnection)
            {
                _connection.Dispose();
            }
        }
    }

    /// <summary>Reads, retrying after the connection failed or timed out; stops waiting when <paramref name="cancellationToken"/> is cancelled.</summary>
    private async Task<T> ReadAsync<T>(string operation, Func<Task<T>> read, CancellationToken cancellationToken)
    {
        for (int attempt = 0; ; attempt++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            try
            {
                return await read().WaitAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (attempt < _readRetries && RedisFailures.IsUnavailable(e) && !IsDisposed)
            {
                // Reading again is harmless; the pause gives a dropped connection time to come back.
                await Task.Delay(TimeSpan.FromMilliseconds(100 * (attempt + 1)), cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (Translate(e, operation, isWrite: false) is Exception translated)
            {
                throw translated;
            }
        }
    }

    /// <summary>Writes once: a write is never retried (see <see cref="RedisKVStoreOptions.ReadRetries"/>).</summary>
    private async Task<T> WriteAsync<T>(string operation, Func<Task<T>> write)
    {
        try
        {
            return await write().ConfigureAwait(false);
        }
        catch (Exception e) when (Translate(e, operation, isWrite: true) is Exception translated)
        {
            throw translated;
        }
    }

    private Exception? Translate(Exception exception, string operation, bool isWrite) =>
        IsDisposed && exception is not OperationCanceledException
            ? new ObjectDisposedException(GetType().FullName, $"The store was disposed while its {operation} was in flight.")
            : RedisFailures.Translate(exception, operation, isWrite);

    /// <summary><c>MGET</c> inside <c>MULTI</c>/<c>EXEC</c>: all keys as of one moment on any server (see the type's remarks).</summary>
    private async Task<RedisValue[]> ReadTogetherAsync(RedisKey[] keys)
    {
        ITransaction transaction = _database.CreateTransaction();
        Task<RedisValue[]> values = transaction.StringGetAsync(keys);
        await transaction.ExecuteAsync().ConfigureAwait(false);
        return await values.ConfigureAwait(false);
    }

    /// <summary>The writes in one <c>MULTI</c>/<c>EXEC</c>, in order; false when a condition failed and nothing was written.</summary>
    private async Task<bool> CommitAsync(EncodedWrite[] writes, Condition[]? conditions)
    {
        ITransaction transaction = _database.CreateTransaction();
        foreach (Condition condition in conditions ?? [])
        {
            transaction.AddCondition(condition);
        }

        // The queued commands' own tasks complete when EXEC does (cancelled when a condition failed); nothing is read from them.
        foreach (EncodedWrite write in writes)
        {
            _ = write.IsDelete ? transaction.KeyDeleteAsync(write.Key) : (Task)transaction.StringSetAsync(write.Key, write.Value);
        }

        return await transaction.ExecuteAsync().ConfigureAwait(false);
    }

    private ReadResult<TValue> Decode(RedisValue stored) =>
        stored.IsNull ? default : new ReadResult<TValue>(KeyStatus.Found, _serializer.DeserializeValue((ReadOnlyMemory<byte>)stored));

    private RedisKey[] EncodeKeys(IReadOnlyList<TKey> keys)
    {
        var encoded = new RedisKey[keys.Count];
        for (int i = 0; i < encoded.Length; i++)
        {
            encoded[i] = _serializer.SerializeKey(keys[i]);
        }

        return encoded;
    }

    private EncodedWrite[] Encode(WriteBatch<TKey, TValue> batch)
    {
        IReadOnlyList<BatchedWrite<TKey, TValue>> writes = batch.Writes;
        var encoded = new EncodedWrite[writes.Count];
        for (int i = 0; i < encoded.Length; i++)
        {
            BatchedWrite<TKey, TValue> write = writes[i];
            encoded[i] = new EncodedWrite(_serializer.SerializeKey(write.Key), write.IsDelete ? RedisValue.Null : _serializer.SerializeValue(write.Value!), write.IsDelete);
        }

        return encoded;
    }

    private bool IsDisposed => Volatile.Read(ref _disposed) != 0;

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(IsDisposed, this);

    private readonly record struct EncodedWrite(RedisKey Key, RedisValue Value, bool IsDelete);
}
