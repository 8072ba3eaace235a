using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Measurement;
using KeyValueStore.LoadTest.Verification;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Running;

/// <summary>
/// One of the --threads workers: an asynchronous loop with one operation in flight at a time, its own
/// random stream, key chooser, buffers and histograms, so workers share nothing on the hot path but
/// the backend and the model. With --batch-size above 1 it gathers its updates and inserts into a
/// <see cref="WriteBatch"/> and writes each full batch as one operation; reads and read-modify-writes stay single.
/// </summary>
internal sealed class Worker
{
    private static readonly int OperationTypeCount = Enum.GetValues<OperationType>().Length;

    private readonly RunState _state;
    private readonly IKeyChooser _chooser;
    private readonly byte[] _key = new byte[RecordCodec.KeySize];
    private readonly byte[] _value;
    private readonly byte[] _readBuffer;
    private readonly LatencyHistogram[] _latencies;

    // With a backend that marks its background work: the run's single operations again, by what ran beside each.
    private readonly IBackgroundWorkObserver? _backgroundWork;
    private readonly LatencyHistogram[][] _latenciesBeside;
    private readonly long[] _notFound;
    private readonly double _nanosecondsPerTick;
    private readonly WriteBatch? _batch;
    private readonly IBatchWriter? _batchWriter;

    // With --rate: how late against the schedule each operation of the run was issued; without it, the one empty
    // histogram the beside-work splits share when unused (each is 58 KB, and a run may have 1,024 workers).
    private readonly LatencyHistogram _issueLag;
    private SplitMix64 _random;
    private long _completed;

    public Worker(RunState state, int index)
    {
        _state = state;
        _random = SplitMix64.ForWorker(state.Options.Seed, index);
        _chooser = KeyChoosers.Create(state.Options.Distribution, state.Options.Records);
        _value = new byte[state.Options.ValueSize];
        _readBuffer = new byte[state.Options.ValueSize];
        _latencies = new LatencyHistogram[OperationTypeCount];
        for (int i = 0; i < _latencies.Length; i++)
        {
            _latencies[i] = new LatencyHistogram();
        }

        _backgroundWork = state.Backend as IBackgroundWorkObserver;
        _latenciesBeside = new LatencyHistogram[Enum.GetValues<BesideWork>().Length][];
        var none = new LatencyHistogram();
        for (int beside = 0; beside < _latenciesBeside.Length; beside++)
        {
            _latenciesBeside[beside] = new LatencyHistogram[OperationTypeCount];
            for (int i = 0; i < OperationTypeCount; i++)
            {
                // 58 KB each: only for a backend that marks its work; the others share one that stays empty.
                _latenciesBeside[beside][i] = _backgroundWork is null ? none : new LatencyHistogram();
            }
        }

        _issueLag = state.Options.Rate is null ? none : new LatencyHistogram();
        _notFound = new long[OperationTypeCount];
        _nanosecondsPerTick = 1e9 / state.Time.TimestampFrequency;
        if (state.Options.BatchSize > 1)
        {
            _batch = new WriteBatch(state.Options.BatchSize, state.Options.ValueSize, state.Options.ValueFill);
            _batchWriter = state.Backend as IBatchWriter ?? throw new InvalidOperationException(
                $"--batch-size {state.Options.BatchSize} needs a backend that writes batches; the command checks that before a run.");
        }
    }

    /// <summary>Gets the operations this worker completed in the current phase; read by the progress line while it runs.</summary>
    public long Completed => Volatile.Read(ref _completed);

    /// <summary>Gets the reads this worker checked against the model (with --verify).</summary>
    public long ReadsChecked { get; private set; }

    public LatencyHistogram Latency(OperationType type) => _latencies[(int)type];

    /// <summary>The run's single operations of <paramref name="type"/> that had <paramref name="beside"/> running beside them; empty when the backend marks no background work.</summary>
    public LatencyHistogram Latency(OperationType type, BesideWork beside) => _latenciesBeside[(int)beside][(int)type];

    public long NotFound(OperationType type) => _notFound[(int)type];

    /// <summary>Gets how late, in nanoseconds, each operation of the run was issued against its schedule (with --rate; empty otherwise).</summary>
    public LatencyHistogram IssueLag => _issueLag;

    /// <summary>Forgets the latencies and not-found counts recorded so far: after --warmup, so that the run phase reports only itself.</summary>
    public void ForgetMeasurements()
    {
        foreach (LatencyHistogram histogram in _latencies.Concat(_latenciesBeside.SelectMany(beside => beside)).Append(_issueLag))
        {
            histogram.Clear();
        }

        Array.Clear(_notFound);
    }

    /// <summary>Writes version 1 of the ids it takes from <paramref name="nextId"/> until all are loaded.</summary>
    public async Task LoadAsync(LoadCursor nextId, CancellationToken stop)
    {
        ResetCount();
        while (!stop.IsCancellationRequested && nextId.TryTake(out long id))
        {
            await WriteNextVersionAsync(id).ConfigureAwait(false);
            Count();
        }
    }

    /// <summary>
    /// Issues the workload's operations, timing each, until <paramref name="stop"/>. With batches, a drawn update
    /// or insert joins the batch, and the batch is written when full; writes of a batch not yet full when the
    /// run ends are dropped unissued (no version or id was given to them). With --rate each draw waits for its
    /// start time from <paramref name="schedule"/>.
    /// </summary>
    public async Task RunAsync(CancellationToken stop, Metronome? schedule)
    {
        ResetCount();
        Workload workload = _state.Options.Workload;
        TimeProvider time = _state.Time;
        _batch?.Clear();
        while (!stop.IsCancellationRequested)
        {
            if (schedule is not null)
            {
                long lagTicks = await schedule.WaitForTurnAsync().ConfigureAwait(false);
                if (stop.IsCancellationRequested)
                {
                    break;
                }

                _issueLag.Record((long)(lagTicks * _nanosecondsPerTick));
            }

            OperationType type = workload.Pick(_random.NextDouble());
            if (_batch is not null && OperationKinds.IsBlindWrite(type))
            {
                _batch.Add(type);
                if (_batch.IsFull)
                {
                    await WriteBatchAsync(_batch).ConfigureAwait(false);
                }

                continue;
            }

            long id = type == OperationType.Insert ? _state.Keys.ReserveInsert() : _chooser.Next(ref _random, _state.Keys.Readable);
            BackgroundMarks before = _backgroundWork?.Mark() ?? default;
            long start = time.GetTimestamp();
            bool found = type switch
            {
                OperationType.Read => await ReadAsync(id, "run", type).ConfigureAwait(false),
                OperationType.Update => await UpdateAsync(id).ConfigureAwait(false),
                OperationType.Insert => await InsertAsync(id).ConfigureAwait(false),
                _ => await ReadModifyWriteAsync(id).ConfigureAwait(false),
            };
            long end = time.GetTimestamp();
            long nanoseconds = (long)((end - start) * _nanosecondsPerTick);
            _latencies[(int)type].Record(nanoseconds);
            if (_backgroundWork is not null)
            {
                _latenciesBeside[(int)before.Until(_backgroundWork.Mark())][(int)type].Record(nanoseconds);
            }

            if (!found)
            {
                _notFound[(int)type]++;
            }

            Count();
        }
    }

    /// <summary>With --verify, after the run: reads every id this worker is given and compares it with the model exactly, nothing being in flight.</summary>
    public async Task SweepAsync(long firstId, long endId, int stride, CancellationToken stop)
    {
        ResetCount();
        for (long id = firstId; id < endId && !stop.IsCancellationRequested; id += stride)
        {
            await ReadAsync(id, "sweep", OperationType.Read).ConfigureAwait(false);
            Count();
        }
    }

    private async ValueTask<bool> ReadAsync(long id, string phase, OperationType operation)
    {
        RecordCodec.WriteKey(_key, id);
        long lowest = _state.Model.Completed(id);
        int length = await _state.Backend.ReadAsync(_key, _readBuffer).ConfigureAwait(false);
        if (_state.Verifier is ReadVerifier verifier)
        {
            long highest = _state.Model.Issued(id);
            verifier.Check(phase, operation, id, lowest, highest, length, _readBuffer.AsSpan(0, Math.Clamp(length, 0, _readBuffer.Length)));
            ReadsChecked++;
        }

        return length >= 0;
    }

    private async ValueTask<bool> UpdateAsync(long id)
    {
        using KeyLocks.Held held = _state.Locks is null ? default : await _state.Locks.LockAsync(id).ConfigureAwait(false);
        await WriteNextVersionAsync(id).ConfigureAwait(false);
        return true;
    }

    private async ValueTask<bool> InsertAsync(long id)
    {
        // A fresh id has no other writer and is not read before its insert completes: no lock needed.
        await WriteNextVersionAsync(id).ConfigureAwait(false);
        _state.Keys.InsertCompleted();
        return true;
    }

    private async ValueTask<bool> ReadModifyWriteAsync(long id)
    {
        using KeyLocks.Held held = _state.Locks is null ? default : await _state.Locks.LockAsync(id).ConfigureAwait(false);
        bool found = await ReadAsync(id, "run", OperationType.ReadModifyWrite).ConfigureAwait(false);
        await WriteNextVersionAsync(id).ConfigureAwait(false);
        return found;
    }

    private async ValueTask WriteNextVersionAsync(long id)
    {
        long version = _state.Model.BeginWrite(id);
        RecordCodec.WriteKey(_key, id);
        RecordCodec.WriteValue(_value, id, version, _state.Options.ValueFill);
        await _state.Backend.UpsertAsync(_key, _value).ConfigureAwait(false);
        _state.Model.EndWrite(id, version);
    }

    /// <summary>
    /// Writes a full batch as one atomic batch and times it whole. Ids are chosen only now, so an insert's id is
    /// in flight only while its batch is, and the frontier of readable ids waits for nothing longer. With --verify
    /// the batch holds its updates' key locks throughout, as a single update holds its one; the model records
    /// every write of the batch, each with its own version (a key twice in a batch gets two, the later one wins).
    /// Each update and insert of the batch is recorded with the batch's latency: it was acknowledged with it.
    /// </summary>
    private async ValueTask WriteBatchAsync(WriteBatch batch)
    {
        int inserts = 0;
        for (int i = 0; i < batch.Count; i++)
        {
            bool insert = batch.TypeAt(i) == OperationType.Insert;
            inserts += insert ? 1 : 0;
            batch.SetId(i, insert ? _state.Keys.ReserveInsert() : _chooser.Next(ref _random, _state.Keys.Readable));
        }

        long start = _state.Time.GetTimestamp();
        using (KeyLocks.HeldMany held = _state.Locks is null ? default : await _state.Locks.LockManyAsync(batch.UpdateIds()).ConfigureAwait(false))
        {
            for (int i = 0; i < batch.Count; i++)
            {
                batch.Encode(i, _state.Model.BeginWrite(batch.IdAt(i)));
            }

            await _batchWriter!.WriteBatchAsync(batch.Writes).ConfigureAwait(false);
            for (int i = 0; i < batch.Count; i++)
            {
                _state.Model.EndWrite(batch.IdAt(i), batch.VersionAt(i));
            }
        }

        if (inserts > 0)
        {
            // One call moves the frontier over all of the batch's inserts: every EndWrite above came before it.
            _state.Keys.InsertCompleted();
        }

        long nanoseconds = (long)((_state.Time.GetTimestamp() - start) * _nanosecondsPerTick);
        _latencies[(int)OperationType.Batch].Record(nanoseconds);
        _latencies[(int)OperationType.Update].Record(nanoseconds, batch.Count - inserts);
        _latencies[(int)OperationType.Insert].Record(nanoseconds, inserts);
        Count(batch.Count);
        batch.Clear();
    }

    private void ResetCount() => Volatile.Write(ref _completed, 0);

    // Only this worker writes the count; the progress line reads it.
    private void Count(int operations = 1) => Volatile.Write(ref _completed, _completed + operations);
}
