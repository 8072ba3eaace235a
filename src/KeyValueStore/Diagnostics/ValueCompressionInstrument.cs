using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Threading;

namespace KeyValueStore.Diagnostics;

/// <summary>
/// <c>kvstore.value.compression</c>: the values written at or above the compression threshold, by what became of them
/// (tag <c>kvstore.compression.outcome</c>: <c>compressed</c>, <c>incompressible</c>, <c>not_tried</c>), observed from a
/// <see cref="ValueCompressionTally"/> when a listener collects.
/// </summary>
/// <remarks>
/// One source for both stores: the embedded store's metrics use it, and the KeyValueStore.Redis package compiles this
/// file in, since both compress values the same way (<see cref="RecordSerializer{TKey, TValue}"/>) and a dashboard should
/// not depend on which store it watches. Until <see cref="Observe"/> is given a tally, and once it is given null (the
/// store closed), it reports nothing: a host's meter can outlive the store.
/// </remarks>
internal sealed class ValueCompressionInstrument
{
    private readonly KeyValuePair<string, object?> _store;
    private Func<ValueCompressionTally>? _tally;

    /// <param name="meter">The meter to create the instrument on.</param>
    /// <param name="store">The <c>kvstore.store</c> tag every measurement carries.</param>
    public ValueCompressionInstrument(Meter meter, KeyValuePair<string, object?> store)
    {
        _store = store;
        meter.CreateObservableCounter("kvstore.value.compression", Measure, "{value}", "Values at or above the compression threshold written, by what became of them.");
    }

    /// <summary>Starts observing <paramref name="tally"/>, or stops observing when it is null.</summary>
    public void Observe(Func<ValueCompressionTally>? tally) => Volatile.Write(ref _tally, tally);

    private IEnumerable<Measurement<long>> Measure()
    {
        if (Volatile.Read(ref _tally) is not { } read)
        {
            return [];
        }

        ValueCompressionTally tally = read();
        return
        [
            new Measurement<long>(tally.Compressed, _store, new("kvstore.compression.outcome", "compressed")),
            new Measurement<long>(tally.Incompressible, _store, new("kvstore.compression.outcome", "incompressible")),
            new Measurement<long>(tally.NotTried, _store, new("kvstore.compression.outcome", "not_tried")),
        ];
    }
}
