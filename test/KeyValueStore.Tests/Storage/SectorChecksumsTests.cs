using System;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

public class SectorChecksumsTests
{
    /// <summary>
    /// Checksums wait in memory only up to a bound: past it they reach their file without a checkpoint, so a store
    /// with a long checkpoint interval does not grow its memory with every byte it writes.
    /// </summary>
    [Fact]
    public async Task PastTheBound_ChecksumsAreWrittenInTheBackground_WithoutACheckpoint()
    {
        using var temp = new TempDirectory();
        var layout = new LogFileLayout(temp.Path, "store");
        var checksums = new SectorChecksums(layout, DirectoryDurability.FileSystem, persistAfterSectors: 4);
        byte[] written = new byte[8 * SectorChecksums.SectorSize];
        new Random(7).NextBytes(written);

        checksums.Record(segment: 0, offset: 0, written.AsSpan(0, 2 * SectorChecksums.SectorSize));
        Assert.False(File.Exists(layout.SectorChecksumPath(0)), "two checksums, under the bound of four, were written already");
        checksums.Record(segment: 0, offset: 2 * SectorChecksums.SectorSize, written.AsSpan(2 * SectorChecksums.SectorSize));

        string path = layout.SectorChecksumPath(0);
        await Eventually.TrueAsync(() => File.Exists(path) && new FileInfo(path).Length == 8 * sizeof(uint), () => $"'{path}' does not hold 8 checksums");
        uint[] expected = Enumerable.Range(0, 8).Select(i => Crc32C.Compute(written.AsSpan(i * SectorChecksums.SectorSize, SectorChecksums.SectorSize), 0)).ToArray();
        using SectorChecksumFile file = SectorChecksumFile.Open(layout, segment: 0);
        Assert.Equal(expected, file.Read(firstSector: 0, count: 8));
    }
}
