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
/// session pool, compaction) are not recorded. Rewritten, the same way, only when the write-ahead log moves out of the
/// store's directory or back (<see cref="WriteAheadLogElsewhere"/>).
/// <para>
/// <see cref="StoreId"/> is the store's own name, made when it is created (null in a manifest written before there were
/// ids): it names the write-ahead log when that lives elsewhere. <see cref="WriteAheadLogElsewhere"/> says whether the log
/// lives outside the store's directory (<see cref="StoreSettings.WriteAheadLogDirectory"/>); the directory itself is not
/// recorded, so that a store and its log can be moved apart.
/// </para>
/// </remarks>
internal sealed record StoreManifest(
    int FormatVersion,
    string KeyType,
    string ValueType,
    string Serialization,
    bool ValueChecksums,
    int PageSizeBits,
    int SegmentSizeBits,
    long IndexNumBuckets,
    string? StoreId = null,
    bool WriteAheadLogElsewhere = false)
{
    /// <summary>
    /// The format this version writes for a store whose write-ahead log, if any, is in its directory. Raise it when the
    /// layout of any file changes.
    /// 2: a value's seal is inverted when a delete expires its record in place (<see cref="ValueChecksum.MarkDeleted"/>).
    /// 3: every sector of the segments has a checksum in <c>&lt;prefix&gt;.sums.&lt;n&gt;</c> (<see cref="SectorChecksums"/>);
    ///    write-ahead log entries carry a sequence number, and commits and checkpoints record one (<see cref="Durability.WalFragment"/>).
    /// </summary>
    public const int CurrentFormatVersion = 3;

    /// <summary>
    /// The format of a store whose write-ahead log lives elsewhere: format 3 otherwise. A library that knows only format 3
    /// must refuse such a store, since it would look for the log in the store's directory, not find it, and start an empty one.
    /// </summary>
    public const int WriteAheadLogElsewhereFormatVersion = 4;

    public static StoreManifest For(StoreSettings settings, RecordFormat format) => new(
        CurrentFormatVersion, format.KeyType, format.ValueType, format.Serialization, settings.ValueChecksums, settings.PageSizeBits, settings.SegmentSizeBits, settings.IndexNumBuckets, NewStoreId());

    /// <summary>This manifest with the write-ahead log recorded in the store's directory or elsewhere, and a store id.</summary>
    public StoreManifest WithWriteAheadLogElsewhere(bool elsewhere) => this with
    {
        FormatVersion = elsewhere ? WriteAheadLogElsewhereFormatVersion : CurrentFormatVersion,
        WriteAheadLogElsewhere = elsewhere,
        StoreId = StoreId ?? NewStoreId(),
    };

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
        bool formatKnown = WriteAheadLogElsewhere
            ? FormatVersion == WriteAheadLogElsewhereFormatVersion && StoreId is not null
            : FormatVersion == CurrentFormatVersion;
        if (!formatKnown)
        {
            throw new StoreManifestMismatchException(
                path,
                nameof(FormatVersion),
                Text(FormatVersion),
                $"format {CurrentFormatVersion}, or {WriteAheadLogElsewhereFormatVersion} with the write-ahead log elsewhere and a store id, the only ones this version of the library reads");
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

    private static string NewStoreId() => Guid.NewGuid().ToString("N");

    private static string Text<T>(T value) where T : IFormattable => value.ToString(null, CultureInfo.InvariantCulture);

    private static string Text(bool value) => value ? "true" : "false";
}

[JsonSourceGenerationOptions(WriteIndented = true)]
[JsonSerializable(typeof(ChecksummedJsonFile.Envelope<StoreManifest>))]
[JsonSerializable(typeof(StoreManifest))]
internal sealed partial class ManifestJsonContext : JsonSerializerContext
{
}
