using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Durability;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Engine;

/// <summary>
/// Opens a store, one step after another: lock the directory; for a durable store, check the manifest and the latest
/// checkpoint and recover FASTER to it (<see cref="StoreRecovery"/>); assemble the engine around its durability mode's
/// <see cref="IWriteJournal"/>; recover through the journal (replaying the write-ahead log); start the background work
/// (group commits, checkpoints, compaction). The caller has validated the options into <see cref="StoreSettings"/>.
/// </summary>
/// <remarks>
/// This is the one place that knows which journal each durability mode gets. An open that fails releases everything it
/// opened and changes no file of a durable store; a failed disk is reported as the directory to fix
/// (<see cref="LogDirectoryUnavailableException"/>), whatever it made the files look like.
/// </remarks>
internal static class StoreOpener
{
    /// <summary>
    /// Opens a store on files it owns, as <paramref name="settings"/> say: new files, or for a durable store the files
    /// already in its directory, recovered. Runs on the thread pool: the checks before recovery read files synchronously.
    /// </summary>
    /// <param name="settings">The validated settings.</param>
    /// <param name="logger">Receives the store's log events.</param>
    /// <param name="timeProvider">The clock of the compaction and checkpoint timers; the system clock when null.</param>
    /// <param name="format">What the records' bytes mean, recorded in a durable store's manifest; raw bytes when null.</param>
    /// <param name="cancellationToken">Cancels the open before it starts; once started, recovery runs to the end.</param>
    public static Task<FasterRecordStore> OpenAsync(StoreSettings settings, ILogger logger, TimeProvider? timeProvider = null, RecordFormat? format = null, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        return Task.Run(() => OpenOwnedAsync(settings, logger, timeProvider ?? TimeProvider.System, format ?? RecordFormat.RawBytes), cancellationToken);
    }

    /// <summary>
    /// <see cref="OpenAsync"/> for callers that cannot await (constructors): blocks the calling thread until the store is
    /// open. The open itself runs on the thread pool, so this cannot deadlock on a synchronization context.
    /// </summary>
    public static FasterRecordStore Open(StoreSettings settings, ILogger logger, TimeProvider? timeProvider = null, RecordFormat? format = null) =>
        OpenAsync(settings, logger, timeProvider, format).GetAwaiter().GetResult();

    /// <summary>
    /// Opens a store on a <see cref="FasterKV{Key, Value}"/> built by the caller, who keeps owning it and its device and
    /// takes its checkpoints. FASTER does not expose a store's page size, so the caller's settings must state it
    /// (<see cref="StoreSettings.PageSizeBits"/>); it is used to reject oversize records before FASTER sees them.
    /// </summary>
    /// <param name="fasterKV">The caller's store.</param>
    /// <param name="settings">The validated settings; their durability must be None.</param>
    /// <param name="logger">Receives the store's events.</param>
    /// <param name="timeProvider">The store's clock; the system's when null.</param>
    /// <param name="wrapJournal">Wraps the store's journal; tests only (they observe or alter what the engine gets from it).</param>
    /// <exception cref="InvalidStoreOptionsException">The settings ask for a durable store, or the FasterKV has what the store cannot run on (<see cref="SuppliedFasterKVCheck"/>); every problem is listed.</exception>
    public static FasterRecordStore OpenOnSupplied(FasterKV<SpanByte, SpanByte> fasterKV, StoreSettings settings, ILogger logger, TimeProvider? timeProvider = null, Func<IWriteJournal, IWriteJournal>? wrapJournal = null)
    {
        List<string> problems = SuppliedFasterKVCheck.ProblemsOf(fasterKV);
        if (settings.IsDurable)
        {
            problems.Insert(0, $"{nameof(MixedStorageKVStoreOptions)}.{nameof(MixedStorageKVStoreOptions.Durability)} is {settings.Durability}, but a pre-built FasterKV was supplied; its owner takes its checkpoints. Use {nameof(DurabilityMode.None)}, or let the store build its own FasterKV.");
        }

        if (problems.Count > 0)
        {
            throw new InvalidStoreOptionsException(problems);
        }

        FasterRecordStore engine = Assemble(OpenedLog.Supplied(fasterKV), settings, logger, timeProvider ?? TimeProvider.System, (_, _, _) => wrapJournal?.Invoke(new NoJournal(fasterKV)) ?? new NoJournal(fasterKV));
        engine.StartCompactor(settings);
        engine.StartMetrics();
        StoreEvents.StoreOpenedOnSuppliedFasterKV(logger);
        return engine;
    }

    /// <summary>
    /// The settings of <see cref="CheckpointWarmUp"/>'s throwaway store in <paramref name="directory"/>: small (64 KB
    /// pages, 4 MB of memory), in Checkpoint mode, whose first checkpoint is an index checkpoint too; it checkpoints
    /// only when asked, nothing compacts it, and its instruments are on <paramref name="meters"/>'s meter.
    /// </summary>
    internal static StoreSettings ThrowawayCheckpointedStore(string directory, IMeterFactory meters) =>
        new(
            IndexNumBuckets: 1 << 10,
            PageSizeBits: 16,
            MemorySizeBits: 22,
            SegmentSizeBits: 22,
            LogDirectory: directory,
            LogFileNamePrefix: "warm-up",
            DeleteLogOnClose: false,
            SessionPoolSize: 2,
            TimeBetweenLogCompactions: null,
            InitialLogCompactionThresholdBytes: 1 << 20,
            Durability: DurabilityMode.Checkpoint,
            CheckpointInterval: Timeout.InfiniteTimeSpan)
        {
            LogMutableFraction = 0.9,
            MeterFactory = meters,
            MinReplayBytesForIndexCheckpoint = 0,
        };

    private static async Task<FasterRecordStore> OpenOwnedAsync(StoreSettings settings, ILogger logger, TimeProvider timeProvider, RecordFormat format)
    {
        var layout = new LogFileLayout(settings.LogDirectory, settings.LogFileNamePrefix);
        layout.EnsureWritable();
        StoreFileLock fileLock = StoreFileLock.Acquire(layout.LockFilePath);
        var fault = new StoreFault();
        RecoveredLog? recovered = null;
        FasterRecordStore? engine = null;
        try
        {
            if (settings.IsDurable)
            {
                CheckpointWarmUp.StartOnce();
                recovered = await StoreRecovery.OpenAsync(settings, layout, format, fault, logger, timeProvider).ConfigureAwait(false);

                // A read failed during recovery: FASTER saw zeros where the bytes were, so what it recovered is not the store.
                fault.ThrowIfFaulted();
                RecoveredLog parts = recovered;
                engine = Assemble(
                    new OpenedLog(parts.Store, fault, parts.Device, layout, fileLock, parts.Spares),
                    settings,
                    logger,
                    timeProvider,
                    (stripeCount, writes, metrics) => DurableJournal(settings, layout, parts, writes, stripeCount, fault, metrics, timeProvider, logger));
            }
            else
            {
                EnsureNoDurableStoreIn(layout);
                (FasterKV<SpanByte, SpanByte> fasterKV, TruncationSafeDevice device, _, _, SegmentRecyclingDevice spares) = FasterLogFactory.Create(settings, layout, reopenExistingSegments: false, fault, timeProvider);
                engine = Assemble(new OpenedLog(fasterKV, fault, device, layout, fileLock, spares), settings, logger, timeProvider, (_, _, _) => new NoJournal(fasterKV));
            }

            await engine.Journal.RecoverAsync(engine.ApplyRecoveredAsync).ConfigureAwait(false);
            engine.Journal.Start();
            engine.StartCompactor(settings);
            engine.StartMetrics();
            StoreEvents.StoreOpened(logger, layout.LogBasePath, settings.PageSizeBytes, 1L << settings.MemorySizeBits, 1L << settings.SegmentSizeBits, settings.DeleteLogOnClose);
            return engine;
        }
        catch (Exception e)
        {
            if (engine is not null)
            {
                await engine.ReleaseAsync().ConfigureAwait(false);
            }
            else
            {
                if (recovered is not null)
                {
                    await recovered.ReleaseAsync().ConfigureAwait(false);
                }

                fileLock.Dispose();
            }

            if (fault.IsFaulted)
            {
                // The disk failed while the store opened: whatever that made the files look like, the disk is the cause
                // to name, and the files are left for an open once it is fixed.
                throw new LogDirectoryUnavailableException(layout.Directory, e is StoreFaultedException ? e : fault.ToException());
            }

            if (e is IOException)
            {
                // A full or failing disk while files are created, preallocated or read: the directory is what to fix.
                throw new LogDirectoryUnavailableException(layout.Directory, e);
            }

            throw;
        }
    }

    /// <summary>The engine and its journal, sharing the key stripes' count, the write barrier and the metrics; nothing is started.</summary>
    private static FasterRecordStore Assemble(OpenedLog log, StoreSettings settings, ILogger logger, TimeProvider timeProvider, Func<int, WriteBarrier, StoreMetrics, IWriteJournal> newJournal)
    {
        var keyStripes = new KeyStripeLocks(log.FasterKV.IndexSize);
        var writes = new WriteBarrier(log.Fault.Token, log.Fault.ToException);
        var metrics = new StoreMetrics(settings.MeterFactory, settings.LogFileNamePrefix);
        return new FasterRecordStore(log, keyStripes, writes, newJournal(keyStripes.StripeCount, writes, metrics), settings, logger, timeProvider, metrics);
    }

    /// <summary>
    /// The journal of a durable mode: checkpoints alone, which hold the store's write barrier while they start, or a
    /// write-ahead log that checkpoints bound, which hold only the journal's applies (<see cref="WriteAheadJournal"/>).
    /// </summary>
    private static IWriteJournal DurableJournal(StoreSettings settings, LogFileLayout layout, RecoveredLog recovered, WriteBarrier writes, int stripeCount, StoreFault fault, StoreMetrics metrics, TimeProvider timeProvider, ILogger logger)
    {
        var indexCheckpoints = new IndexCheckpoints(recovered.Store, recovered.Commits, layout, settings.Directories, settings.MinReplayBytesForIndexCheckpoint, recovered.Index, fault, timeProvider, logger);
        if (settings.Durability != DurabilityMode.Commit)
        {
            var checkpoints = new Checkpointer(
                recovered.Store, layout, recovered.CheckpointFiles, recovered.Commits, indexCheckpoints, writes, writeAheadLog: null, loggedWrites: null, fault, metrics, settings.Directories, settings.SegmentSizeBits, timeProvider, logger);
            return new CheckpointJournal(checkpoints, settings.CheckpointInterval, recovered.WriteAheadLog, recovered.WriteAheadLogSite, recovered.ReplayFrom, timeProvider, logger);
        }

        recovered.WriteAheadLog!.Metrics = metrics;
        var loggedWrites = new WriteGenerations();
        var applies = new WriteBarrier();
        var checkpointer = new Checkpointer(
            recovered.Store, layout, recovered.CheckpointFiles, recovered.Commits, indexCheckpoints, applies, recovered.WriteAheadLog, loggedWrites, fault, metrics, settings.Directories, settings.SegmentSizeBits, timeProvider, logger);
        return new WriteAheadJournal(recovered.WriteAheadLog!, recovered.ReplayFrom, checkpointer, settings.CheckpointInterval, stripeCount, fault, timeProvider, loggedWrites, applies);
    }

    /// <summary>A scratch store must not open where a durable one lives: it would overwrite its segments and, on close, delete them.</summary>
    private static void EnsureNoDurableStoreIn(LogFileLayout layout)
    {
        if (File.Exists(layout.ManifestPath))
        {
            throw new StoreManifestMismatchException(
                layout.ManifestPath, nameof(MixedStorageKVStoreOptions.Durability), $"{DurabilityMode.Checkpoint} or {DurabilityMode.Commit} (a durable store)", nameof(DurabilityMode.None));
        }
    }
}
