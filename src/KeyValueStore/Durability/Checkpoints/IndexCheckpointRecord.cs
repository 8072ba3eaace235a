using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// What the store knows of its latest index checkpoint (<see cref="IndexCheckpoints"/>): its token, the log addresses it
/// was taken between, and the length and CRC-32C of each of its files, taken once FASTER had written and synced them.
/// Kept in the <see cref="CheckpointRecord"/>.
/// </summary>
/// <remarks>
/// FASTER trusts every address in an index checkpoint: a damaged one would send reads into the middle of other records.
/// So recovery uses the index checkpoint only when every file is there byte for byte as recorded, and otherwise
/// rebuilds the index from the log as it would without one. The log holds everything either way, which is why a
/// missing or damaged index checkpoint costs time, never data.
/// </remarks>
/// <param name="Token">The index checkpoint's token.</param>
/// <param name="StartLogicalAddress">The log's tail when it started: recovery replays the log from here.</param>
/// <param name="FinalLogicalAddress">The log's tail when it completed: no log checkpoint ending below it may be paired with it.</param>
/// <param name="Files">Each file of its folder, by name.</param>
internal sealed record IndexCheckpointRecord(Guid Token, long StartLogicalAddress, long FinalLogicalAddress, IReadOnlyList<FileChecksum> Files)
{
    // FASTER's naming: index-checkpoints/<token>/info.dat and ht.dat, each written through a device that appends ".0".
    private const string IndexCheckpointFolder = "index-checkpoints";
    private const string MetadataFileName = "info.dat.0";

    // FASTER 2.6.5's index metadata, after a 4-byte length: text lines of version, checksum, token, table size, hash
    // table bytes, overflow bucket bytes, bucket count, start address and final address.
    private const int StartAddressLine = 7;
    private const int FinalAddressLine = 8;

    /// <summary>The folder holding the folders of the index checkpoints.</summary>
    public static string RootOf(LogFileLayout layout) => Path.Combine(layout.CheckpointDirectory, IndexCheckpointFolder);

    /// <summary>The folder of the index checkpoint <paramref name="token"/>.</summary>
    public static string FolderOf(LogFileLayout layout, Guid token) => Path.Combine(RootOf(layout), token.ToString());

    /// <summary>Records the completed index checkpoint <paramref name="token"/> from its files.</summary>
    /// <exception cref="IOException">A file cannot be read.</exception>
    /// <exception cref="InvalidDataException">Its metadata is not what FASTER 2.6.5 writes.</exception>
    public static IndexCheckpointRecord Of(LogFileLayout layout, Guid token)
    {
        string folder = FolderOf(layout, token);
        (long start, long final) = ReadAddresses(Path.Combine(folder, MetadataFileName), token);
        List<FileChecksum> files = Directory.EnumerateFiles(folder)
            .Order(StringComparer.Ordinal)
            .Select(FileChecksum.Of)
            .ToList();
        return new IndexCheckpointRecord(token, start, final, files);
    }

    /// <summary>
    /// Why recovering <paramref name="point"/> must not use this index checkpoint, or null when it may: it must have
    /// completed below the log checkpoint's tail, and its files must be exactly as recorded. One that started below the
    /// log's begin address may be used: FASTER then replays the log from the begin address, as without one, and keeps
    /// its files for the next open.
    /// </summary>
    public string? ReasonNotToUseWith(RecoveryPoint point, LogFileLayout layout)
    {
        if (FinalLogicalAddress > point.FinalLogicalAddress)
        {
            return $"it ends at log address {FinalLogicalAddress}, past the checkpoint's tail at {point.FinalLogicalAddress}";
        }

        string folder = FolderOf(layout, Token);
        string[] present = Directory.Exists(folder) ? Directory.GetFiles(folder).Select(file => Path.GetFileName(file)).Order(StringComparer.Ordinal).ToArray() : [];
        if (!present.SequenceEqual(Files.Select(file => file.Name), StringComparer.Ordinal))
        {
            return $"its folder '{folder}' holds [{string.Join(", ", present)}], not the recorded [{string.Join(", ", Files.Select(file => file.Name))}]";
        }

        return Files.FirstOrDefault(file => !file.Matches(folder)) is { } damaged
            ? $"its file '{Path.Combine(folder, damaged.Name)}' differs from the {damaged.Bytes} bytes recorded when it was written"
            : null;
    }

    private static (long Start, long Final) ReadAddresses(string metadataPath, Guid token)
    {
        byte[] file = File.ReadAllBytes(metadataPath);
        int length = file.Length >= sizeof(int) ? BinaryPrimitives.ReadInt32LittleEndian(file) : -1;
        if (length < 0 || length > file.Length - sizeof(int))
        {
            throw new InvalidDataException($"'{metadataPath}' does not start with the length of its metadata.");
        }

        string[] lines = Encoding.UTF8.GetString(file, sizeof(int), length).Split('\n', StringSplitOptions.TrimEntries);
        if (lines.Length <= FinalAddressLine || !Guid.TryParse(lines[2], out Guid written) || written != token
            || !long.TryParse(lines[StartAddressLine], NumberStyles.Integer, CultureInfo.InvariantCulture, out long start)
            || !long.TryParse(lines[FinalAddressLine], NumberStyles.Integer, CultureInfo.InvariantCulture, out long final))
        {
            throw new InvalidDataException($"'{metadataPath}' is not the metadata of index checkpoint {token} as FASTER 2.6.5 writes it.");
        }

        return (start, final);
    }
}
