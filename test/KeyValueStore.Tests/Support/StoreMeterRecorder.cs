using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// Hears every measurement on the stores' <c>KeyValueStore</c> meter, with its tags and the meter it came from, and
/// which meters have closed. Tests run in parallel and every store shares the meter's name, so a test reads only the
/// measurements of its own store, by the <c>kvstore.store</c> tag. Shared by the embedded and the Redis store's tests.
/// </summary>
internal sealed class StoreMeterRecorder : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly ConcurrentQueue<Measured> _measurements = new();
    private readonly ConcurrentBag<Meter> _closedMeters = [];

    public StoreMeterRecorder()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == MixedStorageKVStore.MeterName)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _listener.MeasurementsCompleted = (instrument, _) => _closedMeters.Add(instrument.Meter);
        _listener.Start();
    }

    /// <summary>The measurements of <paramref name="instrument"/> tagged with the store <paramref name="store"/>, in the order heard.</summary>
    public IEnumerable<Measured> Of(string store, string instrument) =>
        _measurements.Where(m => m.Instrument == instrument && Equals(m.Tags.GetValueOrDefault("kvstore.store"), store));

    /// <summary>The last value of <paramref name="instrument"/> heard from <paramref name="store"/>.</summary>
    public double Last(string store, string instrument) => Of(store, instrument).Last().Value;

    /// <summary>How many operations of a kind and outcome <paramref name="store"/> counted on <c>kvstore.operations</c>.</summary>
    public long Count(string store, string operation, string outcome) =>
        (long)Of(store, "kvstore.operations")
            .Where(m => Equals(m.Tags["kvstore.operation"], operation) && Equals(m.Tags["kvstore.outcome"], outcome))
            .Sum(m => m.Value);

    /// <summary>Whether <paramref name="meter"/>'s instruments have stopped reporting (the meter was disposed).</summary>
    public bool HasClosed(Meter meter) => _closedMeters.Contains(meter);

    /// <summary>Asks every observable instrument for its value now.</summary>
    public void RecordObservableInstruments() => _listener.RecordObservableInstruments();

    /// <summary>Forgets what was heard so far.</summary>
    public void Clear() => _measurements.Clear();

    public void Dispose() => _listener.Dispose();

    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags) =>
        _measurements.Enqueue(new Measured(instrument.Meter, instrument.Name, value, tags.ToArray().ToDictionary(tag => tag.Key, tag => tag.Value)));
}

/// <summary>One measurement: the meter and instrument it came from, its value and its tags.</summary>
internal sealed record Measured(Meter Meter, string Instrument, double Value, Dictionary<string, object?> Tags);
