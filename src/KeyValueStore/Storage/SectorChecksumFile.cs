using System;
using System.Buffers.Binary;
using System.IO;
using Microsoft.Win32.SafeHandles;

namespace KeyValueStore.Storage;

/// <summary>
/// One segment's sector checksum file, open for reading while recovery checks that segment page by page (one handle per
/// segment, not per page: a large log has hundreds of thousands of pages). See <see cref="SectorChecksums"/>.
/// </summary>
internal sealed class SectorChecksumFile : IDisposable
{
    private readonly SafeFileHandle _file;

    private SectorChecksumFile(string path, SafeFileHandle file)
    {
        Path = path;
        _file = file;
    }

    public string Path { get; }

    /// <summary>Opens the checksum file of <paramref name="segment"/>.</summary>
    /// <exception cref="StoreFileCorruptedException">The file is missing.</exception>
    public static SectorChecksumFile Open(LogFileLayout layout, long segment)
    {
        string path = layout.SectorChecksumPath(segment);
        if (!File.Exists(path))
        {
            throw new StoreFileCorruptedException(path, $"it is missing, but the checkpoint holds sectors of log segment {segment}, whose checksums it keeps");
        }

        return new SectorChecksumFile(path, File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete));
    }

    /// <summary>Reads the checksums of <paramref name="count"/> sectors from <paramref name="firstSector"/> of the segment.</summary>
    /// <exception cref="StoreFileCorruptedException">The file is too short to hold them.</exception>
    public uint[] Read(long firstSector, int count)
    {
        byte[] bytes = new byte[count * SectorChecksums.ChecksumSize];
        int read = RandomAccess.Read(_file, bytes, firstSector * SectorChecksums.ChecksumSize);
        if (read < bytes.Length)
        {
            throw new StoreFileCorruptedException(Path, $"it is {RandomAccess.GetLength(_file)} bytes long, but must hold the checksums of sectors up to {firstSector + count} ({(firstSector + count) * SectorChecksums.ChecksumSize} bytes)");
        }

        uint[] sums = new uint[count];
        for (int i = 0; i < count; i++)
        {
            sums[i] = BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(i * SectorChecksums.ChecksumSize));
        }

        return sums;
    }

    public void Dispose() => _file.Dispose();
}
