using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace KeyValueStore.Diagnostics;

/// <summary>
/// The two instruments every store records its operations on, whatever it runs over: <c>kvstore.operations</c> (by kind
/// and outcome) and <c>kvstore.operation.duration</c> (by kind), each tagged with the store's name.
/// </summary>
/// <remarks>
/// Compiled into both the embedded store (<see cref="StoreMetrics"/>) and KeyValueStore.Redis, so that a service that
/// moves to a server keeps its dashboards: one source for the names, units and tags, and no internal call between the
/// two packages, which may be upgraded apart. With no listener, an operation costs one check of each instrument's
/// <see cref="Instrument.Enabled"/>.
/// </remarks>
internal sealed class OperationInstruments
{
    /// <summary>The meter's name, for a listener or an OpenTelemetry <c>AddMeter</c> (public as <c>MixedStorageKVStore.MeterName</c>).</summary>
    public const string MeterName = "KeyValueStore";

    private readonly KeyValuePair<string, object?> _store;
    private readonly Counter<long> _operations;
    private readonly Histogram<double> _duration;

    /// <param name="meter">The meter named <c>KeyValueStore</c> the instruments are created on.</param>
    /// <param name="store">The <c>kvstore.store</c> tag every measurement carries.</param>
    public OperationInstruments(Meter meter, KeyValuePair<string, object?> store)
    {
        _store = store;
        _operations = meter.CreateCounter<long>("kvstore.operations", "{operation}", "Operations completed, by kind and outcome.");
        _duration = meter.CreateHistogram<double>("kvstore.operation.duration", "s", "How long operations took, by kind.");
    }

    /// <summary>The store's meter: from the host's <paramref name="factory"/>, which owns it, or the store's own when null (the store disposes it).</summary>
    public static Meter CreateMeter(IMeterFactory? factory) => factory?.Create(new MeterOptions(MeterName)) ?? new Meter(MeterName);

    /// <summary>Starts timing an operation: its start, or 0 when nobody listens.</summary>
    public long Start() => _operations.Enabled || _duration.Enabled ? Stopwatch.GetTimestamp() : 0;

    /// <summary>Records an operation that <see cref="Start"/> started at <paramref name="started"/>.</summary>
    /// <param name="operation">Its kind (<see cref="Operation"/>).</param>
    /// <param name="outcome">How it ended (<see cref="Outcome"/>).</param>
    /// <param name="started">What <see cref="Start"/> returned; 0 records nothing.</param>
    public void End(string operation, string outcome, long started)
    {
        if (started == 0)
        {
            return;
        }

        var kind = new KeyValuePair<string, object?>("kvstore.operation", operation);
        _operations.Add(1, _store, kind, new KeyValuePair<string, object?>("kvstore.outcome", outcome));
        _duration.Record(Stopwatch.GetElapsedTime(started).TotalSeconds, _store, kind);
    }
}
