using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using KeyValueStore.Diagnostics;

namespace KeyValueStore.Redis;

/// <summary>
/// A Redis store's instruments: the embedded store's <c>kvstore.operations</c> and <c>kvstore.operation.duration</c>
/// (<see cref="OperationInstruments"/>) and <c>kvstore.value.compression</c> (<see cref="ValueCompressionInstrument"/>:
/// values are compressed here, before they are sent), on the same <c>KeyValueStore</c> meter, so that dashboards built
/// on the embedded store keep working after a move to a server. The embedded store's state instruments (log, disk,
/// compaction) have no counterpart here: the server reports its own.
/// </summary>
internal sealed class RedisStoreMetrics : IDisposable
{
    /// <summary>The <c>kvstore.store</c> tag of a store whose keys have no prefix.</summary>
    public const string UnprefixedStoreName = "redis";

    private readonly Meter _meter;
    private readonly bool _ownsMeter;
    private readonly ValueCompressionInstrument _compression;

    /// <param name="factory">The host's meter factory, or null for a meter of the store's own, disposed with it.</param>
    /// <param name="keyPrefix">The store's key prefix, which names it in the <c>kvstore.store</c> tag (<see cref="UnprefixedStoreName"/> when empty).</param>
    /// <param name="valueCompression">What became of the values written at or above the compression threshold so far.</param>
    public RedisStoreMetrics(IMeterFactory? factory, string keyPrefix, Func<ValueCompressionTally> valueCompression)
    {
        _ownsMeter = factory is null;
        _meter = OperationInstruments.CreateMeter(factory);
        var store = new KeyValuePair<string, object?>("kvstore.store", keyPrefix.Length == 0 ? UnprefixedStoreName : keyPrefix);
        Operations = new OperationInstruments(_meter, store);
        _compression = new ValueCompressionInstrument(_meter, store);
        _compression.Observe(valueCompression);
    }

    /// <summary>Gets the operation instruments.</summary>
    public OperationInstruments Operations { get; }

    /// <summary>Stops observing the store (a host's meter outlives it), and disposes the meter if it is the store's own.</summary>
    public void Dispose()
    {
        _compression.Observe(null);
        if (_ownsMeter)
        {
            _meter.Dispose();
        }
    }
}
