using System;
using System.Globalization;
using System.IO;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace KeyValueStore.Storage;

/// <summary>
/// A durable store's manifest: the file format version, the record format, and the settings its files cannot be read
/// without. Written once, when the store is created, before any other file; checked on every later open.
/// </summary>
/// <remarks>
/// The file is JSON with a CRC-32C of its content, written to a temporary file, flushed to disk and renamed into
/// place, so a crash leaves either no manifest or a whole one. Settings that may change between opens (memory size,
/// session pool, compaction) are not recorded.
/// </remarks>
internal sealed record StoreManifest(
    int FormatVersion,
    string KeyType,
    string ValueType,
    string Serialization,
    bool ValueChecksums,
    int PageSizeBits,
    int SegmentSizeBits,
    long IndexNumBuckets)
{
    /// <summary>
    /// The format this version writes and the only one it reads. Raise it when the layout of any file changes.
    /// 2: a value's seal is inverted when a delete expires its record in place (<see cref="ValueChecksum.MarkDeleted"/>).
    /// 3: every sector of the segments has a checksum in <c>&lt;prefix&gt;.sums.&lt;n&gt;</c> (<see cref="SectorChecksums"/>);
    ///    write-ahead log entries carry a sequence number, and commits and checkpoints record one (<see cref="Durability.WalFragment"/>).
    /// </summary>
    public const int CurrentFormatVersion = 3;

    public static StoreManifest For(StoreSettings settings, RecordFormat format) => new(
        CurrentFormatVersion, format.KeyType, format.ValueType, format.Serialization, settings.ValueChecksums, settings.PageSizeBits, settings.SegmentSizeBits, settings.IndexNumBuckets);

    /// <summary>Reads the manifest at <paramref name="path"/>, or returns null when there is none.</summary>
    /// <exception cref="StoreFileCorruptedException">The file is truncated, not a manifest, or fails its checksum.</exception>
    public static StoreManifest? ReadIfExists(string path) =>
        ChecksummedJsonFile.ReadIfExists(path, ManifestJsonContext.Default.EnvelopeStoreManifest, ManifestJsonContext.Default.StoreManifest);

    /// <summary>Writes the manifest so that a crash leaves either the old state (no manifest) or the whole new one.</summary>
    public void WriteAtomically(string path, DirectoryDurability directories) =>
        ChecksummedJsonFile.WriteAtomically(path, this, ManifestJsonContext.Default.EnvelopeStoreManifest, ManifestJsonContext.Default.StoreManifest, directories);

    /// <summary>Throws <see cref="StoreManifestMismatchException"/> naming the first setting in which <paramref name="requested"/> differs.</summary>
    public void EnsureCompatibleWith(StoreManifest requested, string path)
    {
        if (FormatVersion != CurrentFormatVersion)
        {
            throw new StoreManifestMismatchException(path, nameof(FormatVersion), Text(FormatVersion), $"format {CurrentFormatVersion}, the only one this version of the library reads");
        }

        // Both types in one message: a store opened with the wrong type pair needs to know the right pair, not half of it.
        Check("key and value types", $"<{KeyType}, {ValueType}>", $"<{requested.KeyType}, {requested.ValueType}>");
        Check(nameof(Serialization), Serialization, requested.Serialization);
        Check(nameof(MixedStorageKVStoreOptions.ValueChecksums), Text(ValueChecksums), Text(requested.ValueChecksums));
        Check(nameof(MixedStorageKVStoreOptions.PageSizeBits), Text(PageSizeBits), Text(requested.PageSizeBits));
        Check(nameof(MixedStorageKVStoreOptions.SegmentSizeBits), Text(SegmentSizeBits), Text(requested.SegmentSizeBits));
        Check(nameof(MixedStorageKVStoreOptions.IndexNumBuckets), Text(IndexNumBuckets), Text(requested.IndexNumBuckets));

        void Check(string setting, string stored, string wanted)
        {
            if (!string.Equals(stored, wanted, StringComparison.Ordinal))
            {
                throw new StoreManifestMismatchException(path, setting, stored, wanted);
            }
        }
    }

    private static string Text<T>(T value) where T : IFormattable => value.ToString(null, CultureInfo.InvariantCulture);

    private static string Text(bool value) => value ? "true" : "false";
}

[JsonSourceGenerationOptions(WriteIndented = true)]
[JsonSerializable(typeof(ChecksummedJsonFile.Envelope<StoreManifest>))]
[JsonSerializable(typeof(StoreManifest))]
internal sealed partial class ManifestJsonContext : JsonSerializerContext
{
}
