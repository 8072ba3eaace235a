using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.Redis;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// This store's networked twin as a user opens it: <see cref="RedisKVStore{TKey, TValue}"/> of <see cref="long"/> keys and
/// <c>byte[]</c> values, driven exactly as <see cref="TypedBackend"/> drives <see cref="MixedStorageKVStore{TKey, TValue}"/>
/// (the same types, for the reasons given there, so the same MessagePack bytes), so that the two measure the same workload
/// and differ only in the engine under them. <c>garnet</c> runs it on a Garnet server started in this process
/// (<see cref="InProcessGarnet"/>); <c>redis</c> on a server already running, at --endpoint. Batches are
/// <see cref="WriteBatch{TKey, TValue}"/>s applied with <see cref="RedisKVStore{TKey, TValue}.ApplyBatchAsync"/>, one
/// <c>MULTI</c>/<c>EXEC</c> each, which no other client sees in part.
/// </summary>
/// <remarks>
/// Each operation is a round trip over a socket, loopback for <c>garnet</c>: that, the server's parsing and the
/// connection's single pipeline are what the numbers add to the typed store's. What survives a crash is the server's
/// business, and neither backend counts durable flushes: the in-process Garnet has no storage tier and no append-only file,
/// and a remote server's persistence is whatever it was started with.
/// </remarks>
internal sealed class RedisStoreBackend : ILoadTestBackend, IBatchWriter
{
    // The garnet backend's server is its own and gone after the run, so its keys need no prefix of their own.
    private const string GarnetKeyPrefix = "loadtest:";

    private readonly RedisKVStore<long, byte[]> _store;
    private readonly string _keyPrefix;
    private readonly bool _deleteKeysOnDispose;
    private readonly IDisposable? _server;

    private RedisStoreBackend(RedisKVStore<long, byte[]> store, string keyPrefix, bool deleteKeysOnDispose, IDisposable? server)
    {
        _store = store;
        _keyPrefix = keyPrefix;
        _deleteKeysOnDispose = deleteKeysOnDispose;
        _server = server;
    }

    /// <summary>
    /// <c>garnet</c>: starts a Garnet server in this process, sized for the run (<see cref="GarnetSizing"/>), and connects to
    /// it; disposing the backend stops the server, and what it held goes with it.
    /// </summary>
    public static RedisStoreBackend OnInProcessGarnet(BackendContext context)
    {
        var server = new InProcessGarnet(context.Records, context.ValueSize);
        try
        {
            return new RedisStoreBackend(Connect(server.Endpoint, GarnetKeyPrefix), GarnetKeyPrefix, deleteKeysOnDispose: false, server);
        }
        catch
        {
            server.Dispose();
            throw;
        }
    }

    /// <summary>
    /// <c>redis</c>: connects to the server at <see cref="BackendContext.Endpoint"/>, writing under a prefix no other run
    /// uses, <c>loadtest-&lt;guid&gt;:</c>; disposing the backend deletes every key under it (<see cref="RedisKeyCleanup"/>),
    /// so a shared server keeps nothing of the run.
    /// </summary>
    /// <exception cref="ArgumentException">The context has no endpoint.</exception>
    public static RedisStoreBackend OnServer(BackendContext context)
    {
        string endpoint = context.Endpoint
            ?? throw new ArgumentException("The redis backend measures a server already running, and needs its address (--endpoint host:port).", nameof(context));
        string prefix = $"loadtest-{Guid.NewGuid():N}:";
        return new RedisStoreBackend(Connect(endpoint, prefix), prefix, deleteKeysOnDispose: true, server: null);
    }

    /// <summary>Upserts the record: the id decoded from the key, the value's bytes as the array the caller holds.</summary>
    /// <remarks>The store serializes the value before its first await, so the caller may reuse the array when the task completes.</remarks>
    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value) => _store.UpsertAsync(RecordIdKey.Read(key), WholeArray.Of(value));

    /// <summary>
    /// Writes the batch as one <see cref="WriteBatch{TKey, TValue}"/>, a new one per call as a caller with no batch to
    /// reuse would; the store serializes the values before it sends them, so the caller's arrays go in uncopied.
    /// </summary>
    public async ValueTask WriteBatchAsync(IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> writes)
    {
        var batch = new WriteBatch<long, byte[]>();
        for (int i = 0; i < writes.Count; i++)
        {
            batch.Upsert(RecordIdKey.Read(writes[i].Key), WholeArray.Of(writes[i].Value));
        }

        await _store.ApplyBatchAsync(batch).ConfigureAwait(false);
    }

    /// <summary>Reads the record into <paramref name="destination"/>; -1 when not found, else the value's full length.</summary>
    public async ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination) =>
        TypedRead.CopyInto(await _store.ReadAsync(RecordIdKey.Read(key)).ConfigureAwait(false), destination);

    /// <summary>Deletes the record through the public API: <c>DEL</c>, <see cref="KeyStatus.Found"/> when it removed a key.</summary>
    public async ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) =>
        await _store.DeleteAsync(RecordIdKey.Read(key)).ConfigureAwait(false) == KeyStatus.Found;

    /// <summary>
    /// 0: the in-process Garnet has no storage tier and keeps everything in memory, and a remote server's files are on its
    /// own machine, out of this process's sight.
    /// </summary>
    public long BytesOnDisk() => 0;

    /// <summary>Deletes the run's keys when the server is not the backend's own, then closes the connection, then stops the server when it is.</summary>
    public async ValueTask DisposeAsync()
    {
        try
        {
            if (_deleteKeysOnDispose)
            {
                await RedisKeyCleanup.DeleteUnderPrefixAsync(_store.Connection, _keyPrefix).ConfigureAwait(false);
            }
        }
        finally
        {
            try
            {
                await _store.DisposeAsync().ConfigureAwait(false);
            }
            finally
            {
                _server?.Dispose();
            }
        }
    }

    /// <summary>
    /// Connects a store to <paramref name="endpoint"/>. <c>abortConnect=false</c> makes the connection keep trying after a
    /// failed first attempt, so the check after it is what turns a server that is not there into an error now, rather than
    /// a timeout on the first write.
    /// </summary>
    private static RedisKVStore<long, byte[]> Connect(string endpoint, string keyPrefix)
    {
        var options = new RedisKVStoreOptions { Configuration = $"{endpoint},abortConnect=false", KeyPrefix = keyPrefix };

        // The catalog opens a backend synchronously; this runs once, before anything is measured.
        RedisKVStore<long, byte[]> store = RedisKVStore<long, byte[]>.ConnectAsync(options).GetAwaiter().GetResult();
        if (!store.Connection.IsConnected)
        {
            store.Dispose();
            throw new InvalidOperationException($"Could not connect to the server at {endpoint}: is it running, and reachable from here?");
        }

        return store;
    }
}
