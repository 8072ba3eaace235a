using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Threading;

namespace KeyValueStore.Diagnostics;

/// <summary>
/// A store's instruments on the <c>KeyValueStore</c> meter, every one tagged with the store's name (its file prefix):
/// operations and their durations, recorded as they complete; checkpoints and group commits, recorded by the journal;
/// and the store's state (sizes, compaction, back-pressure, session waits), observed from it when a listener collects.
/// docs/observability.md lists each instrument.
/// </summary>
/// <remarks>
/// With no listener, an operation costs one check of <see cref="Instrument.Enabled"/>. The meter comes from the host's
/// <see cref="IMeterFactory"/> when the options give one (the factory owns it), or is the store's own, disposed when
/// the store closes. A closed store's observed instruments report nothing: a factory's meter can outlive the store.
/// </remarks>
internal sealed class StoreMetrics : IDisposable
{
    private readonly Meter _meter;
    private readonly bool _ownsMeter;
    private readonly KeyValuePair<string, object?> _store;
    private readonly OperationInstruments _operations;
    private readonly Histogram<double> _checkpointDuration;
    private readonly Histogram<double> _commitDuration;
    private readonly Histogram<long> _commitWrites;
    private readonly ValueCompressionInstrument _compression;
    private StoreGauges? _gauges;

    /// <param name="factory">The host's meter factory, or null for a meter of the store's own.</param>
    /// <param name="storeName">The store's name, which every measurement carries as <c>kvstore.store</c>.</param>
    public StoreMetrics(IMeterFactory? factory, string storeName)
    {
        _store = new KeyValuePair<string, object?>("kvstore.store", storeName);
        _ownsMeter = factory is null;
        _meter = OperationInstruments.CreateMeter(factory);
        _operations = new OperationInstruments(_meter, _store);
        _checkpointDuration = _meter.CreateHistogram<double>("kvstore.checkpoint.duration", "s", "How long checkpoints took, from start to durable.");
        _commitDuration = _meter.CreateHistogram<double>("kvstore.commit.duration", "s", "How long the write-ahead log's group commits took, from start to durable.");
        _commitWrites = _meter.CreateHistogram<long>("kvstore.commit.entries", "{entry}", "Write-ahead log entries each commit made durable (a write, or a piece of a batch).");

        _meter.CreateObservableUpDownCounter("kvstore.log.size", () => Observe(g => g.LogBytes()), "By", "Bytes of the hybrid log, from its begin address to its tail.");
        _meter.CreateObservableUpDownCounter("kvstore.disk.usage", () => Observe(g => g.DiskBytes()), "By", "Bytes of the log's segment files on disk, with the emptied ones kept for reuse.");
        _meter.CreateObservableGauge("kvstore.live.size", () => ObserveIfKnown(g => g.LiveBytes()), "By", "The compactor's estimate of the live records' bytes: the median of its last five passes' samples.");
        _meter.CreateObservableCounter("kvstore.compactions", () => Observe(g => g.Compactions()), "{compaction}", "Compaction passes run.");
        _meter.CreateObservableCounter("kvstore.compaction.reclaimed", () => Observe(g => g.DiskBytesFreed()), "By", "Disk bytes compaction gave back.");
        _meter.CreateObservableCounter("kvstore.backpressure.duration", () => Observe(g => g.BackPressure().TotalSeconds), "s", "Time compaction held writers back.");
        _meter.CreateObservableCounter("kvstore.session_pool.waits", () => Observe(g => g.SessionWaits()), "{wait}", "Operations that waited for a free FASTER session.");
        _meter.CreateObservableCounter("kvstore.durable_flushes", () => ObserveIfKnown(g => g.DurableFlushes()), "{flush}", "Checkpoints and group commits that made writes durable.");
        _compression = new ValueCompressionInstrument(_meter, _store);
    }

    /// <summary>Starts timing an operation: its start, or 0 when nobody listens (<see cref="OperationInstruments.Start"/>).</summary>
    public long StartOperation() => _operations.Start();

    /// <summary>Records an operation that <see cref="StartOperation"/> started at <paramref name="started"/> (<see cref="OperationInstruments.End"/>).</summary>
    public void EndOperation(string operation, string outcome, long started) => _operations.End(operation, outcome, started);

    /// <summary>Records a checkpoint that completed.</summary>
    public void RecordCheckpoint(TimeSpan duration) => _checkpointDuration.Record(duration.TotalSeconds, _store);

    /// <summary>Records a group commit of the write-ahead log that made <paramref name="writes"/> entries durable.</summary>
    public void RecordCommit(TimeSpan duration, long writes)
    {
        _commitDuration.Record(duration.TotalSeconds, _store);
        _commitWrites.Record(writes, _store);
    }

    /// <summary>Starts observing the store's state through <paramref name="gauges"/>, once it is open.</summary>
    public void Observe(StoreGauges gauges) => Volatile.Write(ref _gauges, gauges);

    /// <summary>Starts observing what the typed store's value encoding did with the values it compresses or not.</summary>
    public void ObserveCompression(Func<ValueCompressionTally> tally) => _compression.Observe(tally);

    /// <summary>Stops observing the store (it closed), and disposes the meter if it is the store's own.</summary>
    public void Dispose()
    {
        Volatile.Write(ref _gauges, null);
        _compression.Observe(null);
        if (_ownsMeter)
        {
            _meter.Dispose();
        }
    }

    private IEnumerable<Measurement<T>> Observe<T>(Func<StoreGauges, T> read)
        where T : struct =>
        Volatile.Read(ref _gauges) is { } gauges ? [new Measurement<T>(read(gauges), _store)] : [];

    private IEnumerable<Measurement<T>> ObserveIfKnown<T>(Func<StoreGauges, T?> read)
        where T : struct =>
        Volatile.Read(ref _gauges) is { } gauges && read(gauges) is { } value ? [new Measurement<T>(value, _store)] : [];
}
