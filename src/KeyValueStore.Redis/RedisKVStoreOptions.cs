using System.Diagnostics.Metrics;
using MessagePack;

namespace KeyValueStore.Redis;

/// <summary>
/// Settings of a <see cref="RedisKVStore{TKey, TValue}"/>: where the server is, the namespace of the store's keys,
/// and the same serialization settings as <see cref="MixedStorageKVStoreOptions"/>, so that a key and a value have
/// the same bytes in both stores.
/// </summary>
public sealed class RedisKVStoreOptions
{
    /// <summary>The default of <see cref="MaxValueBytes"/>: 16 MB, half of Garnet's default 32 MB page, which holds a whole record.</summary>
    public const int DefaultMaxValueBytes = 16 * 1024 * 1024;

    /// <summary>
    /// Gets or sets the StackExchange.Redis configuration string, e.g. <c>"localhost:6379,abortConnect=false"</c>. Used
    /// only when the store makes its own connection (<see cref="RedisKVStore{TKey, TValue}.ConnectAsync"/>, or the DI
    /// registration when no <c>IConnectionMultiplexer</c> is registered). <c>abortConnect=false</c> lets a service start
    /// before the server is reachable; its operations then fail with <see cref="StoreUnavailableException"/> until it is.
    /// </summary>
    public string? Configuration { get; set; }

    /// <summary>
    /// Gets or sets the prefix of every key the store writes, so that several stores (or other data) share one server:
    /// e.g. <c>"orders:"</c>. Empty by default: the keys are the serialized keys alone.
    /// </summary>
    public string KeyPrefix { get; set; } = string.Empty;

    /// <summary>Gets or sets the Redis database number; -1 (the default) is the connection's default database.</summary>
    public int Database { get; set; } = -1;

    /// <summary>Gets or sets the MessagePack options for keys and values, as <see cref="MixedStorageKVStoreOptions.MessagePackSerializerOptions"/>.</summary>
    public MessagePackSerializerOptions? MessagePackSerializerOptions { get; set; }

    /// <summary>Gets or sets the serialized size from which values are LZ4-compressed, as <see cref="MixedStorageKVStoreOptions.ValueCompressionThresholdBytes"/>.</summary>
    public int ValueCompressionThresholdBytes { get; set; } = 1024;

    /// <summary>
    /// Gets or sets the largest serialized value, before compression, the store writes or reads (16 MB by default). The
    /// server has a limit of its own: Garnet's record must fit in its log page (<c>--page</c>, 32 MB by default), Redis
    /// caps a string at <c>proto-max-bulk-len</c> (512 MB).
    /// </summary>
    public int MaxValueBytes { get; set; } = DefaultMaxValueBytes;

    /// <summary>
    /// Gets or sets how many times a read (<c>ReadAsync</c>, <c>ReadManyAsync</c>) is retried after the connection failed
    /// or timed out, 2 by default. Writes are never retried: a write that timed out may have been applied, and applying
    /// it again could overwrite a later write.
    /// </summary>
    public int ReadRetries { get; set; } = 2;

    /// <summary>
    /// Gets or sets how many times <c>UpdateManyAsync</c> reads and tries to commit before it gives up with
    /// <see cref="UpdateContendedException"/>, 32 by default: it commits only if no other writer changed its keys since
    /// it read them, and waits a random while (growing with each attempt, to at most 100 ms) before it tries again.
    /// </summary>
    public int MaxUpdateAttempts { get; set; } = 32;

    /// <summary>
    /// Gets or sets the factory of the meter the store records its operations on (<c>kvstore.operations</c> and
    /// <c>kvstore.operation.duration</c>, as the embedded store, tagged <c>kvstore.store</c> with <see cref="KeyPrefix"/>,
    /// or <c>redis</c> when it is empty; docs/observability.md). Null (the default): the store's own meter, disposed with
    /// it. The DI registration sets the host's factory.
    /// </summary>
    public IMeterFactory? MeterFactory { get; set; }
}
