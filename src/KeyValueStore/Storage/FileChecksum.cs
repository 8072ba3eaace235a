using System;
using System.Buffers;
using System.Globalization;
using System.IO;

namespace KeyValueStore.Storage;

/// <summary>A file's name, length and CRC-32C (eight hex digits), to tell later whether it still holds the same bytes.</summary>
/// <param name="Name">The file's name, without its folder.</param>
/// <param name="Bytes">Its length.</param>
/// <param name="Crc32C">The CRC-32C of all of its bytes.</param>
internal sealed record FileChecksum(string Name, long Bytes, string Crc32C)
{
    private const int ChunkBytes = 1 << 20;

    /// <summary>Reads the file at <paramref name="path"/> whole.</summary>
    /// <exception cref="IOException">It cannot be read.</exception>
    public static FileChecksum Of(string path)
    {
        (long bytes, uint crc) = Read(path);
        return new FileChecksum(Path.GetFileName(path), bytes, Text(crc));
    }

    /// <summary>Whether <paramref name="folder"/>'s file of this name holds exactly these bytes; false when it cannot be read.</summary>
    public bool Matches(string folder)
    {
        string path = Path.Combine(folder, Name);
        try
        {
            if (new FileInfo(path).Length != Bytes)
            {
                return false;
            }

            (long bytes, uint crc) = Read(path);
            return bytes == Bytes && string.Equals(Text(crc), Crc32C, StringComparison.Ordinal);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }

    private static (long Bytes, uint Crc) Read(string path)
    {
        byte[] chunk = ArrayPool<byte>.Shared.Rent(ChunkBytes);
        try
        {
            using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, bufferSize: 1, FileOptions.SequentialScan);
            long total = 0;
            uint crc = 0;
            int read;
            while ((read = file.Read(chunk, 0, ChunkBytes)) > 0)
            {
                crc = Storage.Crc32C.Compute(chunk.AsSpan(0, read), crc);
                total += read;
            }

            return (total, crc);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(chunk);
        }
    }

    private static string Text(uint crc) => crc.ToString("x8", CultureInfo.InvariantCulture);
}
