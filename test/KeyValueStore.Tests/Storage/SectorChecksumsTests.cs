using System;
using System.IO;
using System.Linq;
using System.Threading;
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

    /// <summary>
    /// A persist takes the pending checksums, then writes them segment by segment. A segment removed in between (the log
    /// truncated) used to be forgotten at once, and the persist then created its checksum file again: a file of a segment
    /// the log no longer has, which nothing would delete until the next truncation. The forget now waits for the persist.
    /// </summary>
    [Fact]
    public async Task ASegmentForgottenWhileAPersistWritesAnother_KeepsNoChecksumFile()
    {
        using var temp = new TempDirectory();
        var layout = new LogFileLayout(temp.Path, "store");
        using var directories = new FirstFlushHeld();
        var checksums = new SectorChecksums(layout, directories);
        byte[] sector = new byte[SectorChecksums.SectorSize];

        // Segment 5 first: the persist creates its file, and holds in that file's directory flush, before segment 0's.
        checksums.Record(segment: 5, offset: 0, sector);
        checksums.Record(segment: 0, offset: 0, sector);
        Task persist = Task.Run(checksums.Persist);
        await directories.Held.WaitAsync(TimeSpan.FromSeconds(30));
        Task forget = Task.Run(() => checksums.ForgetBelow(1));

        // A forget that does not wait for the persist ends now, before segment 0's file exists.
        await Task.WhenAny(forget, Task.Delay(200));
        directories.Release();
        await Task.WhenAll(persist, forget).WaitAsync(TimeSpan.FromSeconds(30));

        Assert.False(File.Exists(layout.SectorChecksumPath(0)), "the checksum file of forgotten segment 0 was written after the forget");
        Assert.True(File.Exists(layout.SectorChecksumPath(5)), "segment 5's checksums, never forgotten, were not written");
    }

    /// <summary>
    /// A persist creates a checksum file, then flushes the directory holding its entry. When that flush failed, the next
    /// persist found the file there and flushed nothing: it returned as if the file's entry were durable. (A checkpoint
    /// flushes the store's directory itself before its record names it, so no checkpoint relied on that.) The next
    /// persist now flushes it.
    /// </summary>
    [Fact]
    public void AFileWhoseDirectoryFlushFailed_HasItsDirectoryFlushedByTheNextPersist()
    {
        using var temp = new TempDirectory();
        var layout = new LogFileLayout(temp.Path, "store");
        var directories = new FirstFlushFails(new IOException("Input/output error"));
        var checksums = new SectorChecksums(layout, directories);
        checksums.Record(segment: 0, offset: 0, new byte[SectorChecksums.SectorSize]);

        Assert.Throws<IOException>(checksums.Persist);
        Assert.True(File.Exists(layout.SectorChecksumPath(0)), "the failed persist did not create the file");
        checksums.Persist();

        Assert.Equal(1, directories.FlushesAfterTheFailure);
    }

    /// <summary>
    /// Past the bound, checksums are written by a pool thread. An exception other than an I/O error thrown there (here
    /// from the directory flush) escaped the work item and ended the process; it is now left for the next persist, which
    /// a checkpoint makes and which reports what fails.
    /// </summary>
    [Fact]
    public async Task AnUnexpectedErrorInABackgroundPersist_LeavesTheChecksumsForTheNextPersist_AndTheProcessRunning()
    {
        using var temp = new TempDirectory();
        var layout = new LogFileLayout(temp.Path, "store");
        var directories = new FirstFlushFails(new InvalidOperationException("a defect in the directory flush"));
        var checksums = new SectorChecksums(layout, directories, persistAfterSectors: 4);
        byte[] written = new byte[8 * SectorChecksums.SectorSize];
        new Random(11).NextBytes(written);

        checksums.Record(segment: 0, offset: 0, written);
        await directories.Failed.WaitAsync(TimeSpan.FromSeconds(30));

        // Long enough for an exception escaping the work item to end the process before the test does.
        await Task.Delay(500);
        checksums.Persist();
        Assert.Equal(1, directories.FlushesAfterTheFailure);
        using SectorChecksumFile file = SectorChecksumFile.Open(layout, segment: 0);
        uint[] expected = Enumerable.Range(0, 8).Select(i => Crc32C.Compute(written.AsSpan(i * SectorChecksums.SectorSize, SectorChecksums.SectorSize), 0)).ToArray();
        Assert.Equal(expected, file.Read(firstSector: 0, count: 8));
    }

    /// <summary>Flushes nothing; the first flush throws <c>failure</c>, and the later ones are counted.</summary>
    private sealed class FirstFlushFails(Exception failure) : DirectoryDurability
    {
        private readonly TaskCompletionSource _failed = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _flushes;

        public Task Failed => _failed.Task;

        public int FlushesAfterTheFailure => Math.Max(0, Volatile.Read(ref _flushes) - 1);

        public override void Flush(string directory)
        {
            if (Interlocked.Increment(ref _flushes) == 1)
            {
                _failed.SetResult();
                throw failure;
            }
        }
    }

    /// <summary>Flushes nothing; the first flush waits until <see cref="Release"/>, and says when it has begun.</summary>
    private sealed class FirstFlushHeld : DirectoryDurability, IDisposable
    {
        private readonly TaskCompletionSource _held = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly ManualResetEventSlim _released = new();
        private int _flushes;

        public Task Held => _held.Task;

        public void Release() => _released.Set();

        public override void Flush(string directory)
        {
            if (Interlocked.Increment(ref _flushes) == 1)
            {
                _held.SetResult();
                _released.Wait(TimeSpan.FromSeconds(30));
            }
        }

        public void Dispose() => _released.Dispose();
    }
}
