using System;
using System.Globalization;
using System.IO;
using System.Text.Json.Serialization;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// The store's own record of its latest completed checkpoint: which one, and a CRC-32C of the whole of FASTER's
/// metadata file for it. Written when the store is created (no checkpoint yet) and after every checkpoint.
/// </summary>
/// <remarks>
/// Why it exists: FASTER's metadata alone cannot tell a store that never completed a checkpoint from one whose metadata
/// was deleted or emptied (both look like "no checkpoint", which would open an empty store and delete the segments),
/// and FASTER's checksum over the metadata does not cover every field (a flipped bit in one of the others would open an
/// empty store). With this record, recovery knows which checkpoint must exist and checks all of its bytes.
/// <para>
/// A crash between FASTER completing a checkpoint and this record being rewritten leaves the record one checkpoint
/// behind; recovery then accepts the newer checkpoint, which FASTER's own checks cover (see <see cref="CheckpointInspector"/>).
/// </para>
/// </remarks>
/// <param name="Token">The checkpoint's token, or null when the store has completed none.</param>
/// <param name="Version">The checkpoint's version; 0 when there is none.</param>
/// <param name="MetadataBytes">The length of the checkpoint's metadata file.</param>
/// <param name="MetadataCrc32C">The CRC-32C of the whole metadata file, as eight hex digits.</param>
/// <param name="TailSector">
/// The bytes before the checkpoint's tail in the sector holding it, in base 64; null when the tail is at a sector
/// boundary. That sector is written again after the checkpoint, so its checksum file may describe newer bytes (see
/// <see cref="SectorChecksums"/>), and FASTER may have changed lock and marker bits of its records in between.
/// </param>
/// <param name="Index">The latest index checkpoint, to recover this checkpoint with; null when none was taken yet.</param>
internal sealed record CheckpointRecord(Guid? Token, long Version, long MetadataBytes, string MetadataCrc32C, string? TailSector = null, IndexCheckpointRecord? Index = null)
{
    /// <summary>The record of a store that has completed no checkpoint.</summary>
    public static CheckpointRecord None { get; } = new(null, 0, 0, "");

    /// <exception cref="StoreFileCorruptedException">The record is damaged.</exception>
    public static CheckpointRecord? ReadIfExists(string path) =>
        ChecksummedJsonFile.ReadIfExists(path, CheckpointRecordJsonContext.Default.EnvelopeCheckpointRecord, CheckpointRecordJsonContext.Default.CheckpointRecord);

    /// <summary>Records the completed checkpoint whose metadata file is <paramref name="metadataPath"/>, and the index checkpoint to recover it with.</summary>
    public static CheckpointRecord Of(Guid token, long version, string metadataPath, byte[]? tailSector, IndexCheckpointRecord? index)
    {
        byte[] metadata = File.ReadAllBytes(metadataPath);
        return new CheckpointRecord(token, version, metadata.Length, CrcOf(metadata), tailSector is null ? null : Convert.ToBase64String(tailSector), index);
    }

    /// <summary>The tail sector's bytes before the tail, when this record names <paramref name="token"/> and has them.</summary>
    /// <exception cref="StoreFileCorruptedException">They are not valid base 64 (the record's own checksum passed, so this is not damage on disk).</exception>
    public byte[]? TailSectorFor(Guid token, string path)
    {
        if (Token != token || TailSector is not { } encoded)
        {
            return null;
        }

        try
        {
            return Convert.FromBase64String(encoded);
        }
        catch (FormatException e)
        {
            throw new StoreFileCorruptedException(path, "its tail sector is not valid base 64", e);
        }
    }

    public void WriteAtomically(string path, DirectoryDurability directories) =>
        ChecksummedJsonFile.WriteAtomically(path, this, CheckpointRecordJsonContext.Default.EnvelopeCheckpointRecord, CheckpointRecordJsonContext.Default.CheckpointRecord, directories);

    /// <summary>Whether <paramref name="metadataPath"/> holds exactly the metadata this record describes.</summary>
    public bool Matches(string metadataPath)
    {
        var file = new FileInfo(metadataPath);
        return file.Exists && file.Length == MetadataBytes && string.Equals(CrcOf(File.ReadAllBytes(metadataPath)), MetadataCrc32C, StringComparison.Ordinal);
    }

    private static string CrcOf(byte[] bytes) => Crc32C.Compute(bytes, 0).ToString("x8", CultureInfo.InvariantCulture);
}

[JsonSourceGenerationOptions(WriteIndented = true)]
[JsonSerializable(typeof(ChecksummedJsonFile.Envelope<CheckpointRecord>))]
[JsonSerializable(typeof(CheckpointRecord))]
internal sealed partial class CheckpointRecordJsonContext : JsonSerializerContext
{
}
