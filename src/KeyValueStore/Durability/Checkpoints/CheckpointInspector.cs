using System;
using System.Collections.Generic;
using System.IO;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// Looks at a durable store's files before FASTER does, so that damage is reported as a
/// <see cref="StoreFileCorruptedException"/> naming the file, rather than as a FASTER failure deep inside recovery or,
/// worse, as silently missing data.
/// </summary>
/// <remarks>
/// FASTER creates a checkpoint's folder when the checkpoint starts, writes its metadata
/// (<c>cpr-checkpoints/&lt;token&gt;/info.dat.0</c>: a length, then text lines ending with a checksum of the fields) in one
/// write after the log is flushed, and then deletes the previous checkpoint. A crash of the process therefore leaves
/// at most one extra folder whose metadata file is missing or empty: that checkpoint never completed and is skipped
/// (logged). A power cut can also leave that one write torn (some sectors written, others not), so damaged metadata
/// of a checkpoint other than the recorded one (<see cref="CheckpointRecord"/>) is skipped too. The recorded
/// checkpoint's metadata that does not parse was damaged after it was written; opening anyway could lose acknowledged
/// data, so the store refuses to open and names the file.
/// </remarks>
internal static class CheckpointInspector
{
    private const string LogCheckpointFolder = "cpr-checkpoints";
    // FASTER writes each checkpoint file through a log device, which appends the segment number ".0" to its name.
    private const string MetadataFileName = "info.dat.0";
    private const int MaxMetadataBytes = 1 << 20;

    /// <summary>Finds the latest completed checkpoint, or returns null when the store has none (a new store).</summary>
    /// <param name="layout">The store's files.</param>
    /// <param name="skipped">
    /// The metadata files of incomplete checkpoints that were passed over: missing or empty, or, for a checkpoint other
    /// than the one the store's record names, damaged.
    /// </param>
    public static RecoveryPoint? FindLatest(LogFileLayout layout, out IReadOnlyList<string> skipped)
    {
        Guid? recordedToken;
        try
        {
            recordedToken = CheckpointRecord.ReadIfExists(layout.CheckpointRecordPath)?.Token;
        }
        catch (StoreFileCorruptedException)
        {
            // Reported by EnsureMatchesRecord; until then no checkpoint is known to be the recorded one, so none is passed over.
            recordedToken = null;
        }

        var incomplete = new List<string>();
        skipped = incomplete;
        string folder = Path.Combine(layout.CheckpointDirectory, LogCheckpointFolder);
        if (!Directory.Exists(folder))
        {
            return null;
        }

        RecoveryPoint? latest = null;
        foreach (string checkpoint in Directory.EnumerateDirectories(folder))
        {
            string metadata = Path.Combine(checkpoint, MetadataFileName);
            var file = new FileInfo(metadata);
            if (!file.Exists || file.Length == 0)
            {
                incomplete.Add(metadata);
                continue;
            }

            RecoveryPoint point;
            try
            {
                point = Read(metadata);
            }
            catch (StoreFileCorruptedException) when (recordedToken is Guid recorded && !string.Equals(Path.GetFileName(checkpoint), recorded.ToString(), StringComparison.OrdinalIgnoreCase))
            {
                // Not the checkpoint the store recorded as complete: its metadata write was cut short by a power cut, or
                // it completed just before a crash that came before its record. Either way the recorded one is still
                // there (its deletion waits for the record, see CheckpointDeviceFactory) and nothing depends on this one.
                incomplete.Add(metadata);
                continue;
            }

            if (latest is null || point.Version > latest.Version)
            {
                latest = point;
            }
        }

        return latest;
    }

    /// <summary>The metadata file of the checkpoint <paramref name="token"/>.</summary>
    public static string MetadataPath(LogFileLayout layout, Guid token) =>
        Path.Combine(layout.CheckpointDirectory, LogCheckpointFolder, token.ToString(), MetadataFileName);

    /// <summary>
    /// Holds the latest completed checkpoint against the store's <see cref="CheckpointRecord"/>: the recorded checkpoint
    /// must still be there, byte for byte, unless a newer one completed after the record was written.
    /// </summary>
    /// <param name="latest">What <see cref="FindLatest"/> found.</param>
    /// <param name="layout">The store's files.</param>
    /// <param name="holdsData">Whether the directory holds log segments, a write-ahead log or checkpoint folders.</param>
    /// <exception cref="StoreFileCorruptedException">The record is missing or damaged, or the checkpoint it names is missing, empty or changed.</exception>
    /// <param name="directories">Flushes the directory after a record is written for a store being created.</param>
    /// <returns>The record.</returns>
    public static CheckpointRecord EnsureMatchesRecord(RecoveryPoint? latest, LogFileLayout layout, bool holdsData, DirectoryDurability directories)
    {
        CheckpointRecord? record = CheckpointRecord.ReadIfExists(layout.CheckpointRecordPath);
        if (record is null)
        {
            if (latest is null && !holdsData)
            {
                // The store was being created: the manifest was written, its record not yet.
                CheckpointRecord.None.WriteAtomically(layout.CheckpointRecordPath, directories);
                return CheckpointRecord.None;
            }

            throw new StoreFileCorruptedException(layout.CheckpointRecordPath, "it is missing, but the directory holds this store's log or checkpoints");
        }

        if (record.Token is not Guid token)
        {
            return record;
        }

        string recorded = MetadataPath(layout, token);
        if (latest is null || latest.Version < record.Version || (latest.Token != token && latest.Version == record.Version))
        {
            throw new StoreFileCorruptedException(
                recorded,
                $"the store recorded checkpoint version {record.Version} as completed ('{layout.CheckpointRecordPath}'), but its metadata is missing or empty"
                + (latest is null ? " and no other checkpoint is complete" : $"; the newest complete checkpoint is version {latest.Version}, older"));
        }

        if (latest.Token == token && !record.Matches(latest.MetadataPath))
        {
            throw new StoreFileCorruptedException(latest.MetadataPath, $"its bytes differ from those the store recorded when the checkpoint completed ('{layout.CheckpointRecordPath}')");
        }

        return record;
    }

    /// <summary>
    /// Checks that every segment file the checkpoint needs is there and long enough to hold what the checkpoint says
    /// was flushed. A missing or truncated segment would otherwise make recovery read zeros or fail inside FASTER.
    /// </summary>
    public static void EnsureSegmentsPresent(RecoveryPoint point, LogFileLayout layout, int segmentSizeBits)
    {
        long segmentSize = 1L << segmentSizeBits;
        if (point.FinalLogicalAddress <= point.BeginAddress)
        {
            return;
        }

        long first = point.BeginAddress >> segmentSizeBits;
        long last = (point.FinalLogicalAddress - 1) >> segmentSizeBits;
        for (long segment = first; segment <= last; segment++)
        {
            string path = layout.SegmentPath(segment);
            long needed = Math.Min(segmentSize, point.FinalLogicalAddress - (segment << segmentSizeBits));
            var file = new FileInfo(path);
            if (!file.Exists)
            {
                throw new StoreFileCorruptedException(path, $"the latest checkpoint ('{point.MetadataPath}') needs this log segment, but it is missing");
            }

            if (file.Length < needed)
            {
                throw new StoreFileCorruptedException(path, $"it is {file.Length} bytes long, but the latest checkpoint ('{point.MetadataPath}') needs its first {needed} bytes");
            }
        }
    }

    /// <summary>Reads and checks one checkpoint's metadata file.</summary>
    /// <exception cref="StoreFileCorruptedException">The file is cut short, does not parse, or fails FASTER's checksum.</exception>
    public static RecoveryPoint Read(string metadataPath)
    {
        byte[] body;
        try
        {
            using var file = new FileStream(metadataPath, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            Span<byte> lengthBytes = stackalloc byte[sizeof(int)];
            if (file.Length < sizeof(int) || file.Read(lengthBytes) != sizeof(int))
            {
                throw new StoreFileCorruptedException(metadataPath, "it is too short to hold checkpoint metadata");
            }

            // Never trust a length read from disk: it must fit in the file and in a sane bound before anything is allocated.
            int length = BitConverter.ToInt32(lengthBytes);
            if (length <= 0 || length > MaxMetadataBytes || length > file.Length - sizeof(int))
            {
                throw new StoreFileCorruptedException(metadataPath, $"its length field says {length} bytes, but the file holds {file.Length - sizeof(int)}");
            }

            body = new byte[length];
            file.ReadExactly(body);
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException or EndOfStreamException)
        {
            throw new StoreFileCorruptedException(metadataPath, "the checkpoint's metadata file is missing or cut short", e);
        }

        HybridLogRecoveryInfo info = default;
        string cookie;
        try
        {
            using var reader = new StreamReader(new MemoryStream(body));
            info.Initialize(reader);

            // FASTER writes the commit cookie, base64, after the fields (what FasterKV.CommitCookie held).
            cookie = reader.ReadToEnd();
        }
        catch (Exception e) when (e is FasterException or FormatException or OverflowException or ArgumentException or NullReferenceException or IndexOutOfRangeException)
        {
            throw new StoreFileCorruptedException(metadataPath, "the checkpoint metadata does not parse or fails FASTER's checksum", e);
        }

        WalPosition? walPosition;
        try
        {
            walPosition = WalPosition.TryRead(cookie.Length == 0 ? null : Convert.FromBase64String(cookie), out WalPosition position) ? position : null;
        }
        catch (FormatException e)
        {
            throw new StoreFileCorruptedException(metadataPath, $"the write-ahead log position after the checkpoint metadata is damaged ({e.Message})", e);
        }

        return new RecoveryPoint(info.guid, info.version, info.beginAddress, info.finalLogicalAddress, metadataPath, walPosition);
    }
}
