using System;
using System.Collections.Generic;
using System.IO;
using FASTER.core;
using KeyValueStore.Diagnostics;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Durability;

/// <summary>
/// Opens a durable store's files: checks the manifest (or writes it for a new store), finds and checks the latest
/// checkpoint, and recovers FASTER to it. Every check runs before FASTER touches the files, and a failed check leaves
/// them unchanged.
/// </summary>
internal static class StoreRecovery
{
    public static (FasterKV<SpanByte, SpanByte> Store, TruncationSafeDevice Device) Open(
        StoreSettings settings, LogFileLayout layout, RecordFormat format, ILogger logger, TimeProvider timeProvider)
    {
        var requested = StoreManifest.For(settings, format);
        StoreManifest? stored = StoreManifest.ReadIfExists(layout.ManifestPath);
        RecoveryPoint? point = CheckpointInspector.FindLatest(layout, out IReadOnlyList<string> skipped);
        IReadOnlyList<LogSegmentFile> segments = layout.Segments();

        if (stored is null)
        {
            if (point is not null || segments.Count > 0)
            {
                throw new StoreFileCorruptedException(layout.ManifestPath, "it is missing, but the directory holds this store's log or checkpoints");
            }

            requested.WriteAtomically(layout.ManifestPath);
            Log.DurableStoreCreated(logger, layout.ManifestPath, settings.Durability);
        }
        else
        {
            stored.EnsureCompatibleWith(requested, layout.ManifestPath);
        }

        if (point is null)
        {
            // A crash before the first checkpoint completed: nothing was promised durable, and a fresh log must not
            // meet segments of the last one.
            foreach (LogSegmentFile segment in segments)
            {
                File.Delete(segment.Path);
            }
        }
        else
        {
            CheckpointInspector.EnsureSegmentsPresent(point, layout, settings.SegmentSizeBits);
            RecordChainCheck.Verify(point, layout, settings.PageSizeBits, settings.SegmentSizeBits);
        }

        foreach (string metadata in skipped)
        {
            Log.IncompleteCheckpointSkipped(logger, metadata);
        }

        (FasterKV<SpanByte, SpanByte> store, TruncationSafeDevice device) = FasterLogFactory.Create(settings, layout, reopenExistingSegments: point is not null);
        if (point is null)
        {
            return (store, device);
        }

        try
        {
            long started = timeProvider.GetTimestamp();

            // No index checkpoint is ever taken (see Checkpointer), so FASTER rebuilds the index from the log's begin address.
            store.Recover(default, point.Token);
            Log.StoreRecovered(logger, point.Token, point.Version, store.Log.BeginAddress, store.Log.TailAddress, timeProvider.GetElapsedTime(started));
            return (store, device);
        }
        catch (Exception e)
        {
            store.Dispose();
            device.Dispose();
            if (e is FasterException)
            {
                throw new StoreFileCorruptedException(point.MetadataPath, $"FASTER could not recover this checkpoint ({e.Message})", e);
            }

            throw;
        }
    }
}
