using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Durability;

/// <summary>
/// Opens a durable store's files: checks the manifest (or writes it for a new store), finds and checks the latest
/// checkpoint, recovers FASTER to it, and opens the write-ahead log with the position to replay it from. Every check of
/// the store's log runs before FASTER touches the files, and a failed check leaves them unchanged.
/// </summary>
/// <remarks>
/// The write-ahead log is opened in Commit mode, and in any durable mode when its directory exists: a store written in
/// Commit mode and reopened in Checkpoint mode still has acknowledged writes there. The store's <see cref="IWriteJournal"/> replays
/// it, through the engine (which owns the write path replay goes through).
/// </remarks>
internal static class StoreRecovery
{
    public static async Task<RecoveredLog> OpenAsync(StoreSettings settings, LogFileLayout layout, RecordFormat format, StoreFault fault, ILogger logger, TimeProvider timeProvider)
    {
        var requested = StoreManifest.For(settings, format);
        StoreManifest? stored = StoreManifest.ReadIfExists(layout.ManifestPath);
        RecoveryPoint? point = CheckpointInspector.FindLatest(layout, out IReadOnlyList<string> skipped);
        IReadOnlyList<LogSegmentFile> segments = layout.Segments();

        CheckpointRecord record = CheckpointRecord.None;
        WriteAheadLogSite walSite;
        if (stored is null)
        {
            if (point is not null || segments.Count > 0)
            {
                throw new StoreFileCorruptedException(layout.ManifestPath, "it is missing, but the directory holds this store's log or checkpoints");
            }

            requested.WriteAtomically(layout.ManifestPath, settings.Directories);
            CheckpointRecord.None.WriteAtomically(layout.CheckpointRecordPath, settings.Directories);
            StoreEvents.DurableStoreCreated(logger, layout.ManifestPath, settings.Durability);
            walSite = WriteAheadLogSite.Find(settings, layout, requested);
        }
        else
        {
            stored.EnsureCompatibleWith(requested, layout.ManifestPath);
            walSite = WriteAheadLogSite.Find(settings, layout, stored);
            bool holdsData = segments.Count > 0 || skipped.Count > 0 || walSite.Exists;
            record = CheckpointInspector.EnsureMatchesRecord(point, layout, holdsData, settings.Directories);
        }

        if (point is not null)
        {
            CheckpointInspector.EnsureSegmentsPresent(point, layout, settings.SegmentSizeBits);
            RecordChainCheck.Verify(point, layout, settings.PageSizeBits, settings.SegmentSizeBits, settings.ValueChecksums, record.TailSectorFor(point.Token, layout.CheckpointRecordPath));
        }

        // Opened before FASTER touches the store's log, so that a damaged write-ahead log changes no file either.
        (WriteAheadLog? writeAheadLog, WalPosition replayFrom) = await OpenWriteAheadLogAsync(settings, layout, walSite, point, fault, logger).ConfigureAwait(false);
        if (point is null)
        {
            // A crash before the first checkpoint completed: a fresh log must not meet segments of the last one. What
            // was acknowledged since is in the write-ahead log (Commit mode); nothing else was promised.
            foreach (LogSegmentFile segment in segments.Concat(layout.SectorChecksumFiles()))
            {
                File.Delete(segment.Path);
            }
        }

        foreach (string metadata in skipped)
        {
            StoreEvents.IncompleteCheckpointSkipped(logger, metadata);
        }

        FasterKV<SpanByte, SpanByte>? store = null;
        TruncationSafeDevice? device = null;
        SegmentRecyclingDevice? spares = null;
        try
        {
            (store, device, CheckpointDeviceFactory? checkpointFiles, CheckpointCommits? commits, spares) = FasterLogFactory.Create(settings, layout, reopenExistingSegments: point is not null, fault, timeProvider);
            IndexCheckpointRecord? index = null;
            if (point is not null)
            {
                long started = timeProvider.GetTimestamp();
                index = UsableIndexCheckpoint(record.Index, point, layout, logger);

                // With an index checkpoint FASTER loads the index and replays the log from where that checkpoint started
                // (or from the begin address, when compaction has moved it past there); without one, from the begin address.
                await store.RecoverAsync(index?.Token ?? default, point.Token).ConfigureAwait(false);
                string indexUsed = index is null
                    ? "rebuilt from the whole log"
                    : $"from index checkpoint {index.Token}, log replayed from address {Math.Max(index.StartLogicalAddress, point.BeginAddress)}";
                StoreEvents.StoreRecovered(logger, point.Token, point.Version, store.Log.BeginAddress, store.Log.TailAddress, indexUsed, timeProvider.GetElapsedTime(started));

                // FASTER asked to delete every checkpoint but the recovered ones, which are those the record names.
                checkpointFiles!.DeleteReplacedCheckpoints();
            }

            return new RecoveredLog(store, device, spares, checkpointFiles!, commits!, index, writeAheadLog, walSite, replayFrom);
        }
        catch (Exception e)
        {
            if (writeAheadLog is not null)
            {
                await writeAheadLog.DisposeAsync().ConfigureAwait(false);
            }

            store?.Dispose();
            device?.Dispose();
            if (e is FasterException && point is not null)
            {
                throw new StoreFileCorruptedException(point.MetadataPath, $"FASTER could not recover this checkpoint ({e.Message})", e);
            }

            throw;
        }
    }

    /// <summary>
    /// The recorded index checkpoint, when <paramref name="point"/> may be recovered with it; null (and a warning when
    /// there was one) otherwise. Without it recovery only takes longer: the log holds everything.
    /// </summary>
    private static IndexCheckpointRecord? UsableIndexCheckpoint(IndexCheckpointRecord? recorded, RecoveryPoint point, LogFileLayout layout, ILogger logger)
    {
        if (recorded is null)
        {
            return null;
        }

        if (recorded.ReasonNotToUseWith(point, layout) is { } reason)
        {
            StoreEvents.IndexCheckpointNotUsed(logger, recorded.Token, reason);
            return null;
        }

        return recorded;
    }

    /// <summary>
    /// Opens the write-ahead log of a Commit-mode store, or the one a store reopened in another durable mode still has,
    /// and says where its replay starts. Null when there is none to open.
    /// </summary>
    private static async Task<(WriteAheadLog? Log, WalPosition ReplayFrom)> OpenWriteAheadLogAsync(StoreSettings settings, LogFileLayout layout, WriteAheadLogSite site, RecoveryPoint? point, StoreFault fault, ILogger logger)
    {
        // A log to be started elsewhere is new: the log a checkpoint names is the one in the store's directory, whatever
        // a crash left where the new one goes.
        string recordedDirectory = site.StartsNew ? layout.WriteAheadLogDirectory : site.Directory;
        if (point?.WalPosition is { } recorded && !Directory.Exists(recordedDirectory))
        {
            throw new StoreFileCorruptedException(recordedDirectory, $"it is missing, but the checkpoint holds the write-ahead log only up to address {recorded.Address}");
        }

        if (settings.Durability != DurabilityMode.Commit && !site.Exists)
        {
            return (null, default);
        }

        site.PrepareToOpen(layout);
        var writeAheadLog = WriteAheadLog.Open(site.Directory, WriteAheadLog.SegmentSizeBitsFor(settings.SegmentSizeBits), fault, logger, device => new SegmentDirectoryDurableDevice(settings.WrapDevice?.Invoke(device, DeviceRole.WriteAheadLog) ?? device, settings.Directories), settings.WrapWriteAheadLogCommits);
        try
        {
            WalPosition replayFrom = ReplayStart(point?.WalPosition, writeAheadLog);

            // Read-only checks first, so that a damaged log changes no file; only then clear a crash's leftovers.
            await writeAheadLog.VerifyAsync(replayFrom).ConfigureAwait(false);
            writeAheadLog = await writeAheadLog.WithoutStaleTailAsync().ConfigureAwait(false);
            site.RecordOpened();
            return (writeAheadLog, replayFrom);
        }
        catch
        {
            await writeAheadLog.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>
    /// Where replay starts: the position the recovered checkpoint recorded, or the log's beginning when it recorded
    /// none (there is no checkpoint, or it was taken before the store used a write-ahead log).
    /// </summary>
    private static WalPosition ReplayStart(WalPosition? position, WriteAheadLog writeAheadLog)
    {
        if (position is not { } from)
        {
            return writeAheadLog.Begin;
        }

        if (from.Address < writeAheadLog.BeginAddress || from.Address > writeAheadLog.CommittedUntilAddress)
        {
            // The log was committed up to the position before the checkpoint started, and dropped below it only after
            // the checkpoint completed: either way round, the log lost entries the checkpoint relies on.
            throw new StoreFileCorruptedException(
                writeAheadLog.Directory,
                $"the checkpoint holds the write-ahead log up to address {from.Address}, but the log keeps only {writeAheadLog.BeginAddress} to {writeAheadLog.CommittedUntilAddress}");
        }

        return from;
    }
}
