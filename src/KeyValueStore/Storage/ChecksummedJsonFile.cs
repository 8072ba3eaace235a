using System;
using System.Globalization;
using System.IO;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;

namespace KeyValueStore.Storage;

/// <summary>
/// A small JSON file of the store's own (the manifest, the checkpoint record) that carries a CRC-32C of its content and
/// is replaced atomically: written to a temporary file, flushed to disk, renamed over the old one, and the directory
/// flushed. A crash or a power cut leaves the old file or the new one, never a mix; damage is reported, never read as data.
/// </summary>
/// <remarks>The file is <c>{ "Content": ..., "Crc32C": "xxxxxxxx" }</c>, the checksum taken over the content's own serialization.</remarks>
internal static class ChecksummedJsonFile
{
    private const int MaxBytes = 64 * 1024;

    /// <summary>Reads the content at <paramref name="path"/>, or returns null when there is no file.</summary>
    /// <exception cref="StoreFileCorruptedException">The file is too long, not JSON of this shape, or fails its checksum.</exception>
    public static T? ReadIfExists<T>(string path, JsonTypeInfo<Envelope<T>> envelopeType, JsonTypeInfo<T> contentType)
        where T : class
    {
        byte[] bytes;
        try
        {
            using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read);
            if (file.Length > MaxBytes)
            {
                throw new StoreFileCorruptedException(path, $"it is {file.Length} bytes long, more than this file can be ({MaxBytes} bytes)");
            }

            bytes = new byte[file.Length];
            file.ReadExactly(bytes);
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            return null;
        }

        Envelope<T>? envelope;
        try
        {
            envelope = JsonSerializer.Deserialize(bytes, envelopeType);
        }
        catch (JsonException e)
        {
            throw new StoreFileCorruptedException(path, "it is not valid JSON of the expected shape", e);
        }

        if (envelope?.Content is null || envelope.Crc32C is null)
        {
            throw new StoreFileCorruptedException(path, "it lacks its content or its checksum");
        }

        if (!string.Equals(envelope.Crc32C, Checksum(envelope.Content, contentType), StringComparison.Ordinal))
        {
            throw new StoreFileCorruptedException(path, "its content does not match its checksum");
        }

        return envelope.Content;
    }

    /// <summary>
    /// Replaces the file at <paramref name="path"/> with <paramref name="content"/>, atomically, and durably: the
    /// directory is flushed after the rename, or a power cut could bring back the old file after the store relied on the new.
    /// </summary>
    public static void WriteAtomically<T>(string path, T content, JsonTypeInfo<Envelope<T>> envelopeType, JsonTypeInfo<T> contentType, DirectoryDurability directories)
    {
        byte[] bytes = JsonSerializer.SerializeToUtf8Bytes(new Envelope<T>(content, Checksum(content, contentType)), envelopeType);
        string temporary = path + ".tmp";
        using (var file = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None))
        {
            file.Write(bytes);
            file.Flush(flushToDisk: true);
        }

        File.Move(temporary, path, overwrite: true);
        directories.Flush(Path.GetDirectoryName(Path.GetFullPath(path))!);
    }

    private static string Checksum<T>(T content, JsonTypeInfo<T> contentType) =>
        Crc32C.Compute(JsonSerializer.SerializeToUtf8Bytes(content, contentType), 0).ToString("x8", CultureInfo.InvariantCulture);

    /// <summary>The file's shape: the content and the checksum of its canonical serialization.</summary>
    internal sealed record Envelope<T>(T Content, string Crc32C);
}
