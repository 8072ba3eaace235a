using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Diagnostics;
using KeyValueStore.Engine;
using KeyValueStore.Serialization;
using KeyValueStore.Storage;
using MessagePack;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore;

/// <summary>
/// An embedded key-value store of typed keys and values on Microsoft FASTER's hybrid log: recent records in memory,
/// older ones in segment files on disk, any number of concurrent callers. Keys and values are serialized with
/// MessagePack; values of at least <see cref="MixedStorageKVStoreOptions.ValueCompressionThresholdBytes"/> are
/// LZ4-compressed. <see cref="MixedStorageKVStoreOptions.Durability"/> decides what survives a restart or a crash.
/// </summary>
/// <remarks>
/// This type validates its arguments, serializes, and delegates to the engine; it holds no state of its own beyond
/// the serializers. Dispose it (preferably with <see cref="DisposeAsync"/>) to flush a durable store and release its files.
/// </remarks>
/// <typeparam name="TKey">The key type; MessagePack must be able to serialize it. Prefer immutable types.</typeparam>
/// <typeparam name="TValue">The value type; MessagePack must be able to serialize it.</typeparam>
public sealed class MixedStorageKVStore<TKey, TValue> : IMixedStorageKVStore<TKey, TValue>
{
    private readonly FasterRecordStore _engine;
    private readonly KeyEncoder<TKey> _keys;
    private readonly ValueCodec<TValue> _values;

    /// <summary>
    /// Creates a store and, for a durable store whose directory holds one, recovers it synchronously on the calling
    /// thread. Services should prefer <see cref="OpenAsync"/>, which recovers without blocking the caller.
    /// </summary>
    /// <param name="mixedStorageKVStoreOptions">The options; the defaults when null.</param>
    /// <param name="logger">Receives the store's log events (compaction, checkpoints, recovery); none when null.</param>
    /// <param name="fasterKVStore">
    /// A FasterKV built by the caller, who keeps owning it and its device; the store then builds none and takes no
    /// checkpoints (its durability must be <see cref="DurabilityMode.None"/>). Set <see cref="MixedStorageKVStoreOptions.PageSizeBits"/>
    /// to its page size. It must have no read cache (<c>LogSettings.ReadCacheSettings</c>): the store's compaction cannot tell
    /// a key the cache answers for from a superseded one. It must lock records (not <c>ConcurrencyControlMode.None</c>):
    /// a read beside a write of the same key would otherwise return a mix of both values.
    /// </param>
    /// <exception cref="InvalidStoreOptionsException">The options are invalid, or <paramref name="fasterKVStore"/> has a read cache or locks no record; every problem is listed and nothing touched the disk.</exception>
    /// <exception cref="SerializationFailedException">MessagePack cannot serialize <typeparamref name="TKey"/> or <typeparamref name="TValue"/>.</exception>
    /// <exception cref="StoreManifestMismatchException">The directory holds a store of other types or settings.</exception>
    /// <exception cref="StoreFileCorruptedException">A file of the store to recover is damaged; nothing was changed.</exception>
    /// <exception cref="StoreLockedException">Another store has the same files open.</exception>
    /// <exception cref="LogDirectoryUnavailableException">The log directory cannot be created, written or read.</exception>
    public MixedStorageKVStore(
        MixedStorageKVStoreOptions? mixedStorageKVStoreOptions = null,
        ILogger<MixedStorageKVStore<TKey, TValue>>? logger = null,
        FasterKV<SpanByte, SpanByte>? fasterKVStore = null)
        : this(mixedStorageKVStoreOptions, logger, fasterKVStore, timeProvider: null)
    {
    }

    /// <summary>Creates a store whose compaction and checkpoint timers run on <paramref name="timeProvider"/>; for tests.</summary>
    internal MixedStorageKVStore(MixedStorageKVStoreOptions? options, ILogger? logger, FasterKV<SpanByte, SpanByte>? fasterKVStore, TimeProvider? timeProvider)
    {
        (StoreSettings settings, _keys, _values) = Prepare(options);
        logger ??= NullLogger.Instance;

        // The synchronous open: it blocks this thread until StoreOpener's asynchronous open completes.
        _engine = fasterKVStore is null
            ? StoreOpener.Open(settings, logger, timeProvider, TypedRecordFormat.For<TKey, TValue>())
            : StoreOpener.OpenOnSupplied(fasterKVStore, settings, logger, timeProvider);
        _engine.Metrics.ObserveCompression(_values.Counts.Tally);
    }

    private MixedStorageKVStore(FasterRecordStore engine, KeyEncoder<TKey> keys, ValueCodec<TValue> values)
    {
        _engine = engine;
        _keys = keys;
        _values = values;
        _engine.Metrics.ObserveCompression(_values.Counts.Tally);
    }

    /// <summary>Gets the FasterKV the store runs on. Use it to inspect FASTER; writing through it bypasses the store's locks.</summary>
    public FasterKV<SpanByte, SpanByte> FasterKV => _engine.FasterKV;

    /// <summary>Internal for tests and tools: the engine under this store.</summary>
    internal FasterRecordStore Engine => _engine;

    /// <summary>
    /// Opens a store, recovering a durable one, without blocking the caller's thread while files are checked and the
    /// log is replayed. The recommended way to open a store in a service.
    /// </summary>
    /// <remarks>
    /// <paramref name="dropOnCompaction"/> is a filter compaction asks of each live value before it copies it: a value
    /// for which it returns true is dropped, and its key then reads as absent, as after a delete. It is for values that
    /// carry their own expiry (a cache's entries), so that expired ones give their disk back without being read again.
    /// Compaction reaches a record at a time of its own choosing (the oldest part of the log first), so until then a
    /// read still returns it: a caller that must never see an expired value checks on read too. The filter runs on
    /// compaction's threads, beside the store's operations: keep it quick, and do not call the store from it. A value
    /// it throws on, or one whose checksum does not match, is kept. A filter that drops a value still wanted loses it.
    /// </remarks>
    /// <param name="options">The options; the defaults when null.</param>
    /// <param name="logger">Receives the store's log events; none when null.</param>
    /// <param name="dropOnCompaction">Returns true for a value compaction should drop rather than copy; null (the default) to copy every live value.</param>
    /// <param name="cancellationToken">Cancels the open before recovery starts; recovery, once started, runs to the end.</param>
    /// <returns>The open store.</returns>
    /// <exception cref="InvalidStoreOptionsException">The options are invalid; every problem is listed and nothing touched the disk.</exception>
    /// <exception cref="SerializationFailedException">MessagePack cannot serialize <typeparamref name="TKey"/> or <typeparamref name="TValue"/>.</exception>
    /// <exception cref="StoreManifestMismatchException">The directory holds a store of other types or settings.</exception>
    /// <exception cref="StoreFileCorruptedException">A file of the store to recover is damaged; nothing was changed.</exception>
    /// <exception cref="StoreLockedException">Another store has the same files open.</exception>
    public static async ValueTask<MixedStorageKVStore<TKey, TValue>> OpenAsync(
        MixedStorageKVStoreOptions? options = null,
        ILogger<MixedStorageKVStore<TKey, TValue>>? logger = null,
        Func<TValue, bool>? dropOnCompaction = null,
        CancellationToken cancellationToken = default)
    {
        (StoreSettings settings, KeyEncoder<TKey> keys, ValueCodec<TValue> values) = Prepare(options);
        if (dropOnCompaction is not null)
        {
            settings = settings with { DropOnCompaction = value => dropOnCompaction(values.Decode(value.ToArray())) };
        }

        FasterRecordStore engine = await StoreOpener.OpenAsync(settings, logger ?? (ILogger)NullLogger.Instance, timeProvider: null, TypedRecordFormat.For<TKey, TValue>(), cancellationToken).ConfigureAwait(false);
        return new MixedStorageKVStore<TKey, TValue>(engine, keys, values);
    }

    /// <summary>Validates the options (the defaults when null) and builds the key and value serializers; touches no file.</summary>
    private static (StoreSettings Settings, KeyEncoder<TKey> Keys, ValueCodec<TValue> Values) Prepare(MixedStorageKVStoreOptions? options)
    {
        options ??= new MixedStorageKVStoreOptions();
        StoreSettings settings = StoreSettingsValidator.Validate(options);
        MessagePackSerializerOptions serializerOptions = options.MessagePackSerializerOptions ?? MessagePackSerializerOptions.Standard;
        return (
            settings,
            new KeyEncoder<TKey>(serializerOptions),
            new ValueCodec<TValue>(serializerOptions, options.ValueCompressionThresholdBytes, (int)Math.Min(int.MaxValue, settings.PageSizeBytes)));
    }

    /// <inheritdoc/>
    /// <remarks>
    /// Not an async method: an upsert the engine completes at once (in memory, no wait) returns without an async state
    /// machine, and only one that waits goes through <see cref="FinishUpsertAsync"/>. Errors still come back in the
    /// returned task, never thrown from the call, as from an async method.
    /// </remarks>
    public ValueTask UpsertAsync(TKey key, TValue value, CancellationToken cancellationToken = default)
    {
        EncodedRecord record = default;
        long started = 0;
        bool encodedKey = false;
        ValueTask upsert;
        try
        {
            ThrowIfDisposed();
            started = _engine.Metrics.StartOperation();
            PooledBufferWriter writer = PooledBufferWriter.Take();
            _keys.EncodeInto(writer, key);
            encodedKey = true;
            record = EncodeRecord(writer, value);
            upsert = _engine.UpsertAsync(record.Key, record.Value, cancellationToken);
        }
        catch (Exception e)
        {
            record.Return();
            if (encodedKey)
            {
                _engine.Metrics.EndOperation(Operation.Upsert, Outcome.Error, started);
            }

            return ValueTask.FromException(e);
        }

        if (!upsert.IsCompletedSuccessfully)
        {
            return FinishUpsertAsync(upsert, record, started);
        }

        // Releases the engine's pooled task, if it had one.
        upsert.GetAwaiter().GetResult();
        record.Return();
        _engine.Metrics.EndOperation(Operation.Upsert, Outcome.Ok, started);
        return default;
    }

    /// <inheritdoc/>
    /// <remarks>Not an async method, for the reason <see cref="UpsertAsync"/> gives; one that waits goes through <see cref="FinishReadAsync"/>.</remarks>
    public ValueTask<ReadResult<TValue>> ReadAsync(TKey key, CancellationToken cancellationToken = default)
    {
        RentedBytes keyBytes = default;
        long started = 0;
        bool encodedKey = false;
        ValueTask<(bool Found, TValue Value)> read;
        try
        {
            ThrowIfDisposed();
            started = _engine.Metrics.StartOperation();
            keyBytes = _keys.Encode(key);
            encodedKey = true;
            read = _engine.ReadAsync(keyBytes.Memory, _values, cancellationToken);
        }
        catch (Exception e)
        {
            keyBytes.Return();
            if (encodedKey)
            {
                _engine.Metrics.EndOperation(Operation.Read, Outcome.Error, started);
            }

            return ValueTask.FromException<ReadResult<TValue>>(e);
        }

        if (!read.IsCompletedSuccessfully)
        {
            return FinishReadAsync(read, keyBytes, started);
        }

        (bool found, TValue value) = read.GetAwaiter().GetResult();
        keyBytes.Return();
        _engine.Metrics.EndOperation(Operation.Read, found ? Outcome.Ok : Outcome.NotFound, started);
        return new ValueTask<ReadResult<TValue>>(found ? new ReadResult<TValue>(KeyStatus.Found, value) : default);
    }

    /// <inheritdoc/>
    /// <remarks>Not an async method, for the reason <see cref="UpsertAsync"/> gives; one that waits goes through <see cref="FinishDeleteAsync"/>.</remarks>
    public ValueTask<KeyStatus> DeleteAsync(TKey key, CancellationToken cancellationToken = default)
    {
        RentedBytes keyBytes = default;
        long started = 0;
        bool encodedKey = false;
        ValueTask<bool> delete;
        try
        {
            ThrowIfDisposed();
            started = _engine.Metrics.StartOperation();
            keyBytes = _keys.Encode(key);
            encodedKey = true;
            delete = _engine.DeleteAsync(keyBytes.Memory, cancellationToken);
        }
        catch (Exception e)
        {
            keyBytes.Return();
            if (encodedKey)
            {
                _engine.Metrics.EndOperation(Operation.Delete, Outcome.Error, started);
            }

            return ValueTask.FromException<KeyStatus>(e);
        }

        if (!delete.IsCompletedSuccessfully)
        {
            return FinishDeleteAsync(delete, keyBytes, started);
        }

        bool found = delete.GetAwaiter().GetResult();
        keyBytes.Return();
        _engine.Metrics.EndOperation(Operation.Delete, found ? Outcome.Ok : Outcome.NotFound, started);
        return new ValueTask<KeyStatus>(found ? KeyStatus.Found : KeyStatus.NotFound);
    }

    /// <inheritdoc/>
    public async ValueTask ApplyBatchAsync(WriteBatch<TKey, TValue> batch, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ThrowIfDisposed();
        long started = _engine.Metrics.StartOperation();
        string outcome = Outcome.Error;
        try
        {
            using EncodedBatch encoded = EncodeBatch(batch);
            await _engine.ApplyBatchAsync(encoded.Writes, cancellationToken).ConfigureAwait(false);
            outcome = Outcome.Ok;
        }
        finally
        {
            _engine.Metrics.EndOperation(Operation.Batch, outcome, started);
        }
    }

    /// <inheritdoc/>
    public async ValueTask<IReadOnlyList<ReadResult<TValue>>> ReadManyAsync(IReadOnlyList<TKey> keys, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(keys);
        ThrowIfDisposed();
        long started = _engine.Metrics.StartOperation();
        string outcome = Outcome.Error;
        try
        {
            using EncodedKeys encoded = EncodeKeys(keys);
            (bool Found, TValue Value)[] read = await _engine.ReadManyAsync(encoded.Keys, _values, cancellationToken).ConfigureAwait(false);
            var results = new ReadResult<TValue>[read.Length];
            for (int i = 0; i < read.Length; i++)
            {
                results[i] = read[i].Found ? new ReadResult<TValue>(KeyStatus.Found, read[i].Value) : default;
            }

            outcome = Outcome.Ok;
            return results;
        }
        finally
        {
            _engine.Metrics.EndOperation(Operation.ReadMany, outcome, started);
        }
    }

    /// <inheritdoc/>
    public async ValueTask UpdateManyAsync(
        IReadOnlyList<TKey> keys,
        Action<IReadOnlyList<ReadResult<TValue>>, WriteBatch<TKey, TValue>> update,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(keys);
        ArgumentNullException.ThrowIfNull(update);
        ThrowIfDisposed();
        long started = _engine.Metrics.StartOperation();
        string outcome = Outcome.Error;
        using EncodedKeys encoded = EncodeKeys(keys);
        EncodedBatch written = default;
        try
        {
            await _engine.UpdateManyAsync(
                encoded.Keys,
                current =>
                {
                    var results = new ReadResult<TValue>[current.Count];
                    for (int i = 0; i < current.Count; i++)
                    {
                        results[i] = current[i] is byte[] stored ? new ReadResult<TValue>(KeyStatus.Found, _values.Decode(stored)) : default;
                    }

                    var batch = new WriteBatch<TKey, TValue>();
                    update(results, batch);
                    written = EncodeBatch(batch);
                    return written.Writes;
                },
                cancellationToken).ConfigureAwait(false);
            outcome = Outcome.Ok;
        }
        finally
        {
            written.Dispose();
            _engine.Metrics.EndOperation(Operation.UpdateMany, outcome, started);
        }
    }

    /// <summary>Gets the store's state now: whether its disk failed, and its log's, files' and live data's sizes. Cheap: reads counters.</summary>
    /// <exception cref="ObjectDisposedException">The store has been disposed.</exception>
    public StoreStatus GetStatus()
    {
        ThrowIfDisposed();
        return _engine.Status();
    }

    /// <inheritdoc/>
    public async ValueTask<CompactionSummary> CompactAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        Compaction.CompactionResult result = await _engine.CompactAsync(cancellationToken).ConfigureAwait(false);
        return new CompactionSummary(result.Compacted, result.LogBytesBefore, result.LogBytesAfter, result.DiskBytesFreed);
    }

    /// <inheritdoc/>
    public async ValueTask CheckpointAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        await _engine.CheckpointAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Waits for the operations in flight, takes a durable store's last checkpoint, and releases FASTER and the files
    /// (deleting them when <see cref="MixedStorageKVStoreOptions.DeleteLogOnClose"/> is set). Idempotent; every later call
    /// of any other member throws <see cref="ObjectDisposedException"/>.
    /// </summary>
    public ValueTask DisposeAsync() => _engine.DisposeAsync();

    /// <summary>Disposes the store synchronously; see <see cref="DisposeAsync"/>.</summary>
    public void Dispose() => _engine.Dispose();

    /// <summary>The rest of an <see cref="UpsertAsync"/> the engine did not complete at once.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask FinishUpsertAsync(ValueTask upsert, EncodedRecord record, long started)
    {
        string outcome = Outcome.Error;
        try
        {
            await upsert.ConfigureAwait(false);
            outcome = Outcome.Ok;
        }
        finally
        {
            record.Return();
            _engine.Metrics.EndOperation(Operation.Upsert, outcome, started);
        }
    }

    /// <summary>The rest of a <see cref="ReadAsync"/> the engine did not complete at once.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<ReadResult<TValue>> FinishReadAsync(ValueTask<(bool Found, TValue Value)> read, RentedBytes keyBytes, long started)
    {
        string outcome = Outcome.Error;
        try
        {
            (bool found, TValue value) = await read.ConfigureAwait(false);
            outcome = found ? Outcome.Ok : Outcome.NotFound;
            return found ? new ReadResult<TValue>(KeyStatus.Found, value) : default;
        }
        finally
        {
            keyBytes.Return();
            _engine.Metrics.EndOperation(Operation.Read, outcome, started);
        }
    }

    /// <summary>The rest of a <see cref="DeleteAsync"/> the engine did not complete at once.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<KeyStatus> FinishDeleteAsync(ValueTask<bool> delete, RentedBytes keyBytes, long started)
    {
        string outcome = Outcome.Error;
        try
        {
            bool found = await delete.ConfigureAwait(false);
            outcome = found ? Outcome.Ok : Outcome.NotFound;
            return found ? KeyStatus.Found : KeyStatus.NotFound;
        }
        finally
        {
            keyBytes.Return();
            _engine.Metrics.EndOperation(Operation.Delete, outcome, started);
        }
    }

    /// <summary>
    /// Appends <paramref name="value"/>'s plain envelope to <paramref name="writer"/>, which holds the key's bytes, and
    /// takes the buffer: checks that the record fits in a page, then compresses the value when it pays.
    /// </summary>
    private EncodedRecord EncodeRecord(PooledBufferWriter writer, TValue value)
    {
        int keyLength = writer.WrittenCount;
        _values.EncodePlainInto(writer, value);
        RentedBytes buffer = writer.Detach();
        try
        {
            // Uncompressed, so that every stored value decompresses to at most a page: the cap a reader checks.
            _engine.EnsureRecordFits(keyLength, buffer.Length - keyLength);
            _values.TryCompressWorthwhile(buffer.Memory.Span[keyLength..], out RentedBytes compressedValue);
            return new EncodedRecord(buffer, keyLength, compressedValue);
        }
        catch
        {
            buffer.Return();
            throw;
        }
    }

    private EncodedKeys EncodeKeys(IReadOnlyList<TKey> keys)
    {
        var encoded = new EncodedKeys(keys.Count);
        try
        {
            for (int i = 0; i < keys.Count; i++)
            {
                encoded.Add(_keys.Encode(keys[i]));
            }
        }
        catch
        {
            encoded.Dispose();
            throw;
        }

        return encoded;
    }

    private EncodedBatch EncodeBatch(WriteBatch<TKey, TValue> batch)
    {
        IReadOnlyList<BatchedWrite<TKey, TValue>> writes = batch.Writes;
        var encoded = new EncodedBatch(writes.Count);
        try
        {
            for (int i = 0; i < writes.Count; i++)
            {
                PooledBufferWriter writer = PooledBufferWriter.Take();
                _keys.EncodeInto(writer, writes[i].Key);
                if (writes[i].IsDelete)
                {
                    EncodedRecord key = EncodedRecord.OfKey(writer.Detach());
                    encoded.Add(key, BatchWrite.Delete(key.Key));
                    continue;
                }

                EncodedRecord record = EncodeRecord(writer, writes[i].Value!);
                encoded.Add(record, BatchWrite.Upsert(record.Key, record.Value));
            }
        }
        catch
        {
            encoded.Dispose();
            throw;
        }

        return encoded;
    }

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(_engine.IsDisposed, this);

    /// <summary>Serialized keys for a multi-key call, given back together.</summary>
    private readonly struct EncodedKeys(int count) : IDisposable
    {
        private readonly List<RentedBytes> _rented = new(count);
        private readonly List<ReadOnlyMemory<byte>> _keys = new(count);

        public IReadOnlyList<ReadOnlyMemory<byte>> Keys => _keys;

        public void Add(RentedBytes key)
        {
            _rented.Add(key);
            _keys.Add(key.Memory);
        }

        public void Dispose()
        {
            foreach (RentedBytes key in _rented)
            {
                key.Return();
            }

            _rented.Clear();
        }
    }

    /// <summary>A batch's serialized writes and the pooled bytes behind them, given back together.</summary>
    private readonly struct EncodedBatch(int count) : IDisposable
    {
        private readonly List<EncodedRecord> _records = new(count);
        private readonly List<BatchWrite> _writes = new(count);

        public IReadOnlyList<BatchWrite> Writes => _writes;

        /// <summary>Holds <paramref name="record"/>'s buffers until disposal, and adds the write made of them.</summary>
        public void Add(EncodedRecord record, BatchWrite write)
        {
            _records.Add(record);
            _writes.Add(write);
        }

        public void Dispose()
        {
            if (_records is null)
            {
                return;
            }

            foreach (EncodedRecord record in _records)
            {
                record.Return();
            }

            _records.Clear();
        }
    }
}
