using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using KeyValueStore.Diagnostics;

namespace KeyValueStore.Redis;

/// <summary>
/// A Redis store's instruments: the embedded store's <c>kvstore.operations</c> and <c>kvstore.operation.duration</c>
/// (<see cref="OperationInstruments"/>), on the same <c>KeyValueStore</c> meter, so that dashboards built on the embedded
/// store keep working after a move to a server. The embedded store's state instruments (log, disk, compaction) have no
/// counterpart here: the server reports its own.
/// </summary>
internal sealed class RedisStoreMetrics : IDisposable
{
    /// <summary>The <c>kvstore.store</c> tag of a store whose keys have no prefix.</summary>
    public const string UnprefixedStoreName = "redis";

    private readonly Meter _meter;
    private readonly bool _ownsMeter;

    /// <param name="factory">The host's meter factory, or null for a meter of the store's own, disposed with it.</param>
    /// <param name="keyPrefix">The store's key prefix, which names it in the <c>kvstore.store</c> tag (<see cref="UnprefixedStoreName"/> when empty).</param>
    public RedisStoreMetrics(IMeterFactory? factory, string keyPrefix)
    {
        _ownsMeter = factory is null;
        _meter = OperationInstruments.CreateMeter(factory);
        Operations = new OperationInstruments(_meter, new KeyValuePair<string, object?>("kvstore.store", keyPrefix.Length == 0 ? UnprefixedStoreName : keyPrefix));
    }

    /// <summary>Gets the operation instruments.</summary>
    public OperationInstruments Operations { get; }

    /// <summary>Disposes the meter if it is the store's own.</summary>
    public void Dispose()
    {
        if (_ownsMeter)
        {
            _meter.Dispose();
        }
    }
}
