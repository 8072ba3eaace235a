using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Measurement;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Reporting;
using KeyValueStore.LoadTest.Verification;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Running;

/// <summary>
/// Runs the phases against one backend: load (every record written once), run (the workload for
/// --seconds), and with --verify a sweep that reads every id once more; then measures disk and memory.
/// </summary>
internal sealed class LoadTestRunner
{
    /// <summary>Ids past the highest ever written that the sweep reads too: they must be "not found".</summary>
    internal const int NeverWrittenProbes = 1000;

    private readonly LoadTestOptions _options;
    private readonly ProgressLine _progress;
    private readonly TimeProvider _time;

    public LoadTestRunner(LoadTestOptions options, TextWriter progress, bool progressIsTerminal, TimeProvider time)
    {
        _options = options;
        _progress = new ProgressLine(progress, progressIsTerminal, time);
        _time = time;
    }

    /// <summary>Runs every phase; <paramref name="cancel"/> (Ctrl+C) ends the current phase early and skips the rest, and the report says so.</summary>
    public async Task<LoadTestReport> RunAsync(ILoadTestBackend backend, string runDirectory, CancellationToken cancel)
    {
        EnsureThreadsForWorkers(_options.Threads);
        var model = new ExpectedContents();
        using KeyLocks? locks = _options.Verify ? new KeyLocks() : null;
        var state = new RunState(
            _options,
            backend,
            model,
            new KeySpace(_options.Records, model),
            locks,
            _options.Verify ? new ReadVerifier(_options.ValueSize, _options.ValueFill) : null,
            _time);
        Worker[] workers = Enumerable.Range(0, _options.Threads).Select(index => new Worker(state, index)).ToArray();

        var cursor = new LoadCursor(_options.Records);
        PhaseResult load = await RunPhaseAsync("load", "records", _options.Records, workers, (worker, stop, _) => worker.LoadAsync(cursor, stop), duration: null, cancel).ConfigureAwait(false);

        if (_options.WarmupSeconds > 0 && !cancel.IsCancellationRequested)
        {
            // The workload itself, unmeasured: the JIT's optimized code and the store's caches are in place when the run starts.
            await RunPhaseAsync("warm-up", "ops", total: null, workers, (worker, stop, schedule) => worker.RunAsync(stop, schedule), TimeSpan.FromSeconds(_options.WarmupSeconds), cancel, paced: true).ConfigureAwait(false);
            foreach (Worker worker in workers)
            {
                worker.ForgetMeasurements();
            }
        }

        PhaseResult run = PhaseResult.Skipped;
        long[] perWorker = new long[workers.Length];
        long? flushesAfterLoad = DurableFlushes(backend);
        var compactionSamples = new List<CompactionSample>();
        long runAllocated = 0;
        TimeSpan runGcPause = TimeSpan.Zero;
        int runGen2 = 0;
        if (!cancel.IsCancellationRequested)
        {
            if (_options.Cold)
            {
                PageCache.Drop();
            }

            long allocatedBefore = GC.GetTotalAllocatedBytes();
            TimeSpan gcPauseBefore = GC.GetTotalPauseDuration();
            int gen2Before = GC.CollectionCount(2);
            run = await RunPhaseAsync("run", "ops", total: null, workers, (worker, stop, schedule) => worker.RunAsync(stop, schedule), TimeSpan.FromSeconds(_options.Seconds), cancel, paced: true, backend as ICompactionReporter, compactionSamples).ConfigureAwait(false);
            runAllocated = GC.GetTotalAllocatedBytes() - allocatedBefore;
            runGcPause = GC.GetTotalPauseDuration() - gcPauseBefore;
            runGen2 = GC.CollectionCount(2) - gen2Before;
            perWorker = workers.Select(worker => worker.Completed).ToArray();
        }

        // Taken as the run ends, before the sweep: flushes during the sweep (a periodic checkpoint) are not the run's.
        long? flushesAfterRun = DurableFlushes(backend);
        CompactionReport? compaction = CompactionSummary(backend, compactionSamples, run.Seconds);

        long sweepReads = 0;
        if (state.Verifier is not null && !cancel.IsCancellationRequested)
        {
            long end = state.Keys.Issued + NeverWrittenProbes;
            int stride = workers.Length;
            PhaseResult sweep = await RunPhaseAsync("verify", "reads", end, workers, (worker, stop, _) => worker.SweepAsync(Array.IndexOf(workers, worker), end, stride, stop), duration: null, cancel).ConfigureAwait(false);
            sweepReads = sweep.Operations;
        }

        long bytesOnDisk = backend.BytesOnDisk();
        IReadOnlyList<OperationReport> operations = Operations(workers, run.Seconds);
        return new LoadTestReport(
            Settings(runDirectory),
            new MachineReport(Environment.ProcessorCount, RuntimeInformation.OSDescription, RuntimeInformation.FrameworkDescription, System.Runtime.GCSettings.IsServerGC),
            new PhaseReport(load.Operations, load.Seconds, Rate(load.Operations, load.Seconds), load.Completed),
            RunSummary(run, perWorker, runAllocated, runGcPause, runGen2),
            operations,
            bytesOnDisk,
            MemorySnapshot(),
            new VerificationReport(
                state.Verifier is not null,
                workers.Sum(worker => worker.ReadsChecked),
                sweepReads,
                state.Verifier?.Mismatches ?? 0,
                (state.Verifier?.Examples ?? []).Select(mismatch => new MismatchReport(
                    mismatch.Phase, OperationNames.Of(mismatch.Operation), mismatch.KeyId, mismatch.ExpectedLowest, mismatch.ExpectedHighest, mismatch.Observed)).ToArray()),
            FlushSummary(backend, flushesAfterLoad, flushesAfterRun, workers),
            BatchSummary(operations, run.Seconds),
            compaction,
            backend is IBackgroundWorkObserver ? LatencyBesideBackgroundWork(workers) : null,
            _options.Rate is long rate ? new PacingReport(rate, Latencies(Merged(workers, worker => worker.IssueLag))) : null);
    }

    private static long? DurableFlushes(ILoadTestBackend backend) => (backend as IDurableFlushCounter)?.DurableFlushes;

    /// <summary>The run's compaction accounting, for a backend that reports it; null for the others.</summary>
    private static CompactionReport? CompactionSummary(ILoadTestBackend backend, List<CompactionSample> everySecond, double runSeconds)
    {
        if (backend is not ICompactionReporter reporter)
        {
            return null;
        }

        CompactionSample end = reporter.SampleCompaction(runSeconds);
        double? peak = everySecond.Append(end).Max(sample => sample.DiskPerLive);
        return new CompactionReport(end, peak, everySecond);
    }

    /// <summary>The run phase's flushes and writes, for a backend that counts flushes; null for the others.</summary>
    private DurableFlushReport? FlushSummary(ILoadTestBackend backend, long? flushesAfterLoad, long? flushesAfterRun, Worker[] workers)
    {
        if (backend is not IDurableFlushCounter counter || flushesAfterLoad is not long before || flushesAfterRun is not long after)
        {
            return null;
        }

        // Every operation type of the workload but a read writes exactly once: an update, an insert, a read-modify-write.
        // (A batch is not one of them: its writes are counted as the updates and inserts they are.)
        long writes = _options.Workload.OperationTypes
            .Where(type => type != OperationType.Read)
            .Sum(type => workers.Sum(worker => worker.Latency(type).Count));
        long flushes = after - before;
        return new DurableFlushReport(flushes, writes, writes > 0 ? (double)flushes / writes : null, counter.FlushNote);
    }

    /// <summary>With --batch-size above 1, the run's batches and the writes they carried; null otherwise.</summary>
    private BatchReport? BatchSummary(IReadOnlyList<OperationReport> operations, double seconds)
    {
        if (_options.BatchSize == 1)
        {
            return null;
        }

        OperationReport batches = operations.Single(operation => operation.Type == OperationNames.Of(OperationType.Batch));
        long writes = batches.Count * _options.BatchSize; // Every batch is full: one is written only when it is.
        return new BatchReport(_options.BatchSize, batches.Count, batches.OperationsPerSecond, writes, Rate(writes, seconds), batches.LatencyMicroseconds);
    }

    /// <summary>
    /// Workers are asynchronous loops on the thread pool, and an operation that completes
    /// synchronously (FASTER in memory; SQLite always) keeps its thread busy. The pool starts with one
    /// thread per core and adds more only slowly, so without this most workers would wait seconds for
    /// a thread. Raising the minimum lets every worker, and the progress line, run from the start.
    /// </summary>
    private static void EnsureThreadsForWorkers(int workers)
    {
        ThreadPool.GetMinThreads(out int minWorkerThreads, out int minIoThreads);
        int wanted = workers + (2 * Environment.ProcessorCount);
        if (minWorkerThreads < wanted)
        {
            ThreadPool.SetMinThreads(wanted, minIoThreads);
        }
    }

    /// <summary>
    /// Runs <paramref name="work"/> on every worker until all finish or the phase stops; <paramref name="paced"/> phases
    /// (the workload's, not the load or the sweep) follow --rate's schedule when it is given.
    /// </summary>
    private async Task<PhaseResult> RunPhaseAsync(
        string phase, string unit, long? total, Worker[] workers, Func<Worker, CancellationToken, Metronome?, Task> work, TimeSpan? duration, CancellationToken cancel, bool paced = false, ICompactionReporter? compaction = null, List<CompactionSample>? compactionSamples = null)
    {
        using var timer = duration is TimeSpan length ? new CancellationTokenSource(length, _time) : new CancellationTokenSource();
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancel, timer.Token);
        using var progressStop = new CancellationTokenSource();
        long start = _time.GetTimestamp();
        Metronome? schedule = null;
        Func<TimeSpan, string?>? everySecond = compaction is null || compactionSamples is null
            ? null
            : elapsed =>
            {
                CompactionSample sample = compaction.SampleCompaction(elapsed.TotalSeconds);
                compactionSamples.Add(sample);
                return sample.Describe();
            };
        Task progress = _progress.RunAsync(phase, unit, () => workers.Sum(worker => worker.Completed), total, start, progressStop.Token, everySecond);
        try
        {
            schedule = paced && _options.Rate is long rate ? Metronome.Start(_time, rate, stop.Token) : null;
            await Task.WhenAll(workers.Select(worker => Task.Run(async () =>
            {
                try
                {
                    await work(worker, stop.Token, schedule).ConfigureAwait(false);
                }
                catch
                {
                    await stop.CancelAsync().ConfigureAwait(false); // One failing worker ends the phase for all.
                    throw;
                }
            }))).ConfigureAwait(false);
        }
        finally
        {
            // Every worker has stopped; the token ends the schedule's thread also in a phase whose work simply ran out.
            await stop.CancelAsync().ConfigureAwait(false);
            schedule?.Dispose();
            await progressStop.CancelAsync().ConfigureAwait(false);
            await progress.ConfigureAwait(false);
        }

        double seconds = _time.GetElapsedTime(start).TotalSeconds;
        return new PhaseResult(workers.Sum(worker => worker.Completed), seconds, !cancel.IsCancellationRequested);
    }

    private SettingsReport Settings(string runDirectory) => new(
        _options.Backend.Name,
        _options.Backend.Description,
        _options.Workload.Name,
        _options.Workload.Description,
        _options.Distribution.ToString().ToLowerInvariant(),
        _options.Threads,
        _options.BatchSize,
        _options.Seconds,
        _options.Records,
        _options.ValueSize,
        _options.Backend.UsesMemorySize ? _options.MemorySizeBytes : null,
        _options.Backend.UsesMemorySize ? 1L << FasterStoreSizing.PageSizeBits(_options.MemorySizeBytes, _options.ValueSize) : null,
        _options.Backend.UsesMemorySize ? _options.Compaction : null,
        _options.Backend.UsesMemorySize && _options.DiskBudgetBytes > 0 ? _options.DiskBudgetBytes : null,
        runDirectory,
        _options.WriteAheadLogDirectory,
        _options.Endpoint,
        _options.Verify,
        _options.Seed,
        _options.Cold,
        _options.WarmupSeconds,
        _options.Backend.UsesMemorySize ? _options.MutableFraction : null,
        _options.Rate,
        _options.Backend.UsesMemorySize ? _options.CompactionRatio : null,
        _options.Backend.UsesMemorySize ? 1L << FasterStoreSizing.SegmentSizeBits(_options.MemorySizeBytes, _options.ValueSize, _options.SegmentSizeBytes) : null,
        _options.ValueFill.ToString().ToLowerInvariant());

    private static RunReport RunSummary(PhaseResult run, long[] perWorker, long allocated, TimeSpan gcPause, int gen2Collections)
    {
        double[] rates = perWorker.Select(count => Rate(count, run.Seconds)).ToArray();
        return new RunReport(
            run.Operations,
            run.Seconds,
            Rate(run.Operations, run.Seconds),
            new PerThreadReport(rates.Average(), rates.Min(), rates.Max(), perWorker),
            run.Completed,
            allocated,
            run.Operations > 0 ? (double)allocated / run.Operations : null,
            Math.Round(gcPause.TotalMilliseconds, 1),
            gen2Collections);
    }

    /// <summary>The run's single operations of each type split by the background work beside them, with each split's p99.9 against the quiet one's.</summary>
    private IReadOnlyList<BesideWorkLatencyReport> LatencyBesideBackgroundWork(Worker[] workers)
    {
        var reports = new List<BesideWorkLatencyReport>();
        foreach (OperationType type in _options.Workload.OperationTypes)
        {
            LatencyHistogram[] beside = Enum.GetValues<BesideWork>().Select(work => Merged(workers, worker => worker.Latency(type, work))).ToArray();
            long all = beside.Sum(histogram => histogram.Count);
            long quietP999 = beside[(int)BesideWork.Neither].ValueAtQuantile(0.999);
            foreach (BesideWork work in Enum.GetValues<BesideWork>())
            {
                LatencyHistogram histogram = beside[(int)work];
                long p999 = histogram.ValueAtQuantile(0.999);
                reports.Add(new BesideWorkLatencyReport(
                    OperationNames.Of(type),
                    work.ToString().ToLowerInvariant(),
                    histogram.Count,
                    all > 0 ? Math.Round((double)histogram.Count / all, 4) : 0,
                    Latencies(histogram),
                    work != BesideWork.Neither && histogram.Count > 0 && quietP999 > 0 ? Math.Round((double)p999 / quietP999, 2) : null));
            }
        }

        return reports;
    }

    private static LatencyHistogram Merged(Worker[] workers, Func<Worker, LatencyHistogram> histogramOf)
    {
        var merged = new LatencyHistogram();
        foreach (Worker worker in workers)
        {
            merged.Add(histogramOf(worker));
        }

        return merged;
    }

    private static LatencyReport Latencies(LatencyHistogram histogram) =>
        new(
            Microseconds(histogram.Mean),
            Microseconds(histogram.ValueAtQuantile(0.50)),
            Microseconds(histogram.ValueAtQuantile(0.99)),
            Microseconds(histogram.ValueAtQuantile(0.999)),
            Microseconds(histogram.Max));

    private IReadOnlyList<OperationReport> Operations(Worker[] workers, double seconds)
    {
        var reports = new List<OperationReport>();
        OperationType[] batched = _options.BatchSize > 1 ? [OperationType.Batch] : [];
        foreach (OperationType type in _options.Workload.OperationTypes.Concat(batched))
        {
            LatencyHistogram merged = Merged(workers, worker => worker.Latency(type));
            reports.Add(new OperationReport(
                OperationNames.Of(type),
                merged.Count,
                workers.Sum(worker => worker.NotFound(type)),
                Rate(merged.Count, seconds),
                Latencies(merged)));
        }

        return reports;
    }

    private static MemoryReport MemorySnapshot()
    {
        using Process self = Process.GetCurrentProcess();
        self.Refresh();
        return new MemoryReport(
            self.PeakWorkingSet64,
            GC.GetGCMemoryInfo().HeapSizeBytes,
            GC.GetTotalAllocatedBytes(),
            GC.CollectionCount(0),
            GC.CollectionCount(1),
            GC.CollectionCount(2));
    }

    private static double Rate(long count, double seconds) => seconds > 0 ? count / seconds : 0;

    private static double Microseconds(double nanoseconds) => Math.Round(nanoseconds / 1000, 3);

    private sealed record PhaseResult(long Operations, double Seconds, bool Completed)
    {
        public static PhaseResult Skipped { get; } = new(0, 0, false);
    }
}
