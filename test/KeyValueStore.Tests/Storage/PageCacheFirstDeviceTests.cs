using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using static KeyValueStore.Tests.Support.DeviceIo;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Tests.Storage;

/// <summary>
/// A record's read the page cache can answer completes before <c>ReadAsync</c> returns (<see cref="PageCacheFirstDevice"/>);
/// every other read goes to the device under it, and every read returns the bytes on disk.
/// </summary>
public class PageCacheFirstDeviceTests
{
    private const int SegmentSizeBits = 20;

    [Fact]
    public void ARecordReadOfCachedBytes_CompletesBeforeReadAsyncReturns_WithTheBytesWritten()
    {
        using var temp = new TempDirectory();
        using var device = Open(temp.Path);
        byte[] written = Pattern(4096, seed: 7);
        Write(device, written, address: (1L << SegmentSizeBits) + 8192);

        using var buffer = new AlignedBuffer(4096);
        bool completedInside = false;
        uint completedBytes = 0;
        device.ReadAsync((ulong)((1L << SegmentSizeBits) + 8192), buffer.Pointer, 4096, (error, bytes, _) => { completedInside = error == 0; completedBytes = bytes; }, null!);

        Assert.Equal(NonBlockingFileRead.MayBeSupported, completedInside);
        if (completedInside)
        {
            Assert.Equal(4096u, completedBytes);
            Assert.Equal(written, buffer.ToArray());
            Assert.Equal(1, device.ReadsAnsweredNow);
        }
    }

    [Fact]
    public void ReadsLargerThanARecordsRead_AndReadsOfARemovedSegment_GoToTheDeviceUnderIt_AndReturnTheBytesOnDisk()
    {
        using var temp = new TempDirectory();
        using var device = Open(temp.Path);
        byte[] page = Pattern((int)PageCacheFirstDevice.LargestReadNow * 2, seed: 3);
        Write(device, page, address: 0);

        using var buffer = new AlignedBuffer(page.Length);
        Assert.Equal(0u, ReadAndWait(device, 0, buffer));
        Assert.Equal(page, buffer.ToArray());
        Assert.Equal(0, device.ReadsAnsweredNow);
        Assert.Equal(1, device.ReadsPassedOn);

        // A segment FASTER removed: the page cache's handle is closed with it, and the read is the device's to answer.
        Write(device, page[..4096], address: 1L << SegmentSizeBits);
        device.RemoveSegment(0);
        using var small = new AlignedBuffer(4096);
        _ = ReadAndWait(device, 1L << SegmentSizeBits, small);
        Assert.Equal(page[..4096], small.ToArray());
        ReadAndWait(device, 0, small);
        Assert.Equal(NonBlockingFileRead.MayBeSupported ? 1 : 0, device.ReadsAnsweredNow);
        Assert.Equal(NonBlockingFileRead.MayBeSupported ? 2 : 3, device.ReadsPassedOn);
    }

    [Fact]
    public void ReadsRacingTheRemovalOfTheirSegment_EachCompleteOnce_WithTheBytesOnDiskOrAnError_AndNeverThrow()
    {
        using var temp = new TempDirectory();
        using var device = Open(temp.Path);
        byte[] written = Pattern(4096, seed: 11);
        Write(device, written, address: 0);
        int completions = 0;
        int wrongBytes = 0;
        int issued = 0;
        var failures = new System.Collections.Concurrent.ConcurrentQueue<Exception>();
        using var stop = new CancellationTokenSource();
        var readers = new Thread[4];
        for (int r = 0; r < readers.Length; r++)
        {
            readers[r] = new Thread(() =>
            {
                try
                {
                    using var buffer = new AlignedBuffer(4096);
                    while (!stop.IsCancellationRequested)
                    {
                        using var done = new ManualResetEventSlim();
                        uint error = 0;
                        device.ReadAsync(0UL, buffer.Pointer, 4096, (e, _, _) => { error = e; Interlocked.Increment(ref completions); done.Set(); }, null!);
                        Interlocked.Increment(ref issued);
                        if (!done.Wait(TimeSpan.FromSeconds(30)))
                        {
                            throw new TimeoutException("a read did not complete");
                        }

                        if (error == 0 && !buffer.ToArray().AsSpan().SequenceEqual(written))
                        {
                            Interlocked.Increment(ref wrongBytes);
                        }
                    }
                }
                catch (Exception e)
                {
                    failures.Enqueue(e);
                }
            });
            readers[r].Start();
        }

        Thread.Sleep(100);
        device.RemoveSegment(0);
        Thread.Sleep(100);
        stop.Cancel();
        foreach (Thread reader in readers)
        {
            reader.Join();
        }

        Assert.Empty(failures);
        Assert.Equal(Volatile.Read(ref issued), Volatile.Read(ref completions));
        Assert.True(device.ReadsAnsweredNow > 0 || !NonBlockingFileRead.MayBeSupported, "reads were answered from the cache before the removal");
        Assert.Equal(0, wrongBytes);
    }

    [Fact]
    public void AReadOfASegmentBeingTruncated_WhileAReaderHoldsTheEpoch_LeavesNoHandleOnTheFileOnceItIsDeleted()
    {
        using var temp = new TempDirectory();
        var epoch = new LightEpoch();
        using var device = Open(temp.Path, epoch);
        byte[] written = Pattern(4096, seed: 5);
        Write(device, written, address: 0);
        Write(device, written, address: 1L << SegmentSizeBits);
        using var buffer = new AlignedBuffer(4096);
        Assert.Equal(0u, ReadAndWait(device, 0, buffer));

        // FASTER deletes a truncated segment's file only once every thread that may still read it has left the epoch.
        using var holding = new ManualResetEventSlim();
        using var letGo = new ManualResetEventSlim();
        var reader = new Thread(() =>
        {
            epoch.Resume();
            holding.Set();
            letGo.Wait(TimeSpan.FromSeconds(30));
            epoch.Suspend();
        });
        reader.Start();
        Assert.True(holding.Wait(TimeSpan.FromSeconds(30)), "the reader entered the epoch");
        using var truncated = new ManualResetEventSlim();
        device.TruncateUntilSegmentAsync(1, _ => truncated.Set(), null!);
        string segmentFile = Path.Combine(temp.Path, "segments.log.0");
        Assert.False(truncated.IsSet, "the file waits for the reader");
        Assert.True(File.Exists(segmentFile));

        // A read FASTER issued before the truncation, arriving now: answered with the bytes still on disk.
        Assert.Equal(0u, ReadAndWait(device, 0, buffer));
        Assert.Equal(written, buffer.ToArray());

        letGo.Set();
        reader.Join();
        Assert.True(truncated.Wait(TimeSpan.FromSeconds(30)), "the truncation completed");
        Assert.False(File.Exists(segmentFile));
        Assert.Empty(OpenHandlesOnDeletedFile(segmentFile));
    }

    /// <summary>
    /// A recovery trims the segments past the checkpoint's tail one by one, and the log then writes those numbers again:
    /// the segments below stay in the page cache's reach (a first version of the truncation fix took any removal for a
    /// truncation up to it, and sent every later read of a recovered store to the device's slow path).
    /// </summary>
    [Fact]
    public void ATailSegmentRemovedAlone_LeavesTheSegmentsBelowItAnsweredFromThePageCache()
    {
        using var temp = new TempDirectory();
        using var device = Open(temp.Path);
        byte[] written = Pattern(4096, seed: 13);
        Write(device, written, address: 0);
        Write(device, written, address: 2L << SegmentSizeBits);
        device.RemoveSegment(2);

        using var buffer = new AlignedBuffer(4096);
        Assert.Equal(0u, ReadAndWait(device, 0, buffer));
        Assert.Equal(written, buffer.ToArray());
        Assert.Equal(NonBlockingFileRead.MayBeSupported ? 1 : 0, device.ReadsAnsweredNow);
    }

    [Fact]
    public async Task AStoresReadsOfRecordsOnDisk_AreAnsweredFromThePageCache_AndReturnEveryValue()
    {
        using var temp = new TempDirectory();
        (FasterRecordStore opened, PageCacheFirstDevice? segments) = OpenLowMemoryStore(temp.Path);
        await using FasterRecordStore store = opened;
        const int Records = 5_000;
        for (int i = 0; i < Records; i++)
        {
            await store.UpsertAsync(BitConverter.GetBytes(i), Pattern(100, seed: i));
        }

        for (int i = 0; i < Records; i++)
        {
            (bool found, PooledBuffer value) = await store.ReadAsync(BitConverter.GetBytes(i));
            Assert.True(found);
            Assert.Equal(Pattern(100, seed: i), value.Span.ToArray());
        }

        Assert.NotNull(segments);
        if (NonBlockingFileRead.MayBeSupported)
        {
            Assert.True(segments.ReadsAnsweredNow > Records / 2, $"{segments.ReadsAnsweredNow} of the reads were answered from the page cache, {segments.ReadsPassedOn} passed on");
        }
    }

    /// <summary>
    /// FASTER reads a record longer than a sector twice, the second read from inside the first's completion. Once the
    /// device has seen such a second read, a record's read takes that much more, and the next second read is copied from
    /// it, with the bytes on disk.
    /// </summary>
    [Fact]
    public void ASecondReadOfARecord_FromInsideTheFirstsCompletion_IsCopiedFromTheBytesReadAhead_OnceOneWasSeen()
    {
        if (!NonBlockingFileRead.MayBeSupported)
        {
            return;
        }

        using var temp = new TempDirectory();
        using var device = Open(temp.Path);
        byte[] written = Pattern(64 * 1024, seed: 17);
        Write(device, written, address: 0);

        // The first record's second read finds nothing read ahead, and teaches the device 1,024 bytes.
        Assert.Equal(written.AsSpan(4096, 1536).ToArray(), ReadTwiceAsFasterDoes(device, 4096, 512, 1536));
        Assert.Equal(0, device.ReadsAnsweredAhead);
        Assert.Equal(2, device.ReadsAnsweredNow);
        Assert.Equal(1024, device.ReadAheadBytes);

        Assert.Equal(written.AsSpan(20480, 1536).ToArray(), ReadTwiceAsFasterDoes(device, 20480, 512, 1536));
        Assert.Equal(1, device.ReadsAnsweredAhead);
        Assert.Equal(3, device.ReadsAnsweredNow);

        // Longer than what was read ahead: read from the file, and learnt.
        Assert.Equal(written.AsSpan(32768, 2048).ToArray(), ReadTwiceAsFasterDoes(device, 32768, 512, 2048));
        Assert.Equal(1, device.ReadsAnsweredAhead);
        Assert.Equal(1536, device.ReadAheadBytes);
    }

    /// <summary>
    /// What is read ahead once only grew: after one long record, every record's read took as much past its request as
    /// that record needed, for good. Now it lasts a period of reads: once a period has passed whose second reads needed
    /// less, the device reads that much ahead, and a long record is learnt again when it comes back.
    /// </summary>
    [Fact]
    public void WhatIsReadAhead_FollowsTheLatestPeriodsSecondReads_NotTheLongestEverSeen()
    {
        if (!NonBlockingFileRead.MayBeSupported)
        {
            return;
        }

        using var temp = new TempDirectory();
        using var device = Open(temp.Path);
        byte[] written = Pattern(64 * 1024, seed: 23);
        Write(device, written, address: 0);

        Assert.Equal(written.AsSpan(4096, 6144).ToArray(), ReadTwiceAsFasterDoes(device, 4096, 512, 6144));
        Assert.Equal(5632, device.ReadAheadBytes);

        // Two reads a record: a period's worth of records is two periods of reads, one of them wholly after the long one.
        for (int record = 0; record < PageCacheFirstDevice.ReadsPerPeriod; record++)
        {
            long address = 16384 + (record % 8 * 4096);
            Assert.Equal(written.AsSpan((int)address, 1536).ToArray(), ReadTwiceAsFasterDoes(device, address, 512, 1536));
        }

        Assert.Equal(1024, device.ReadAheadBytes);
        Assert.Equal(written.AsSpan(4096, 6144).ToArray(), ReadTwiceAsFasterDoes(device, 4096, 512, 6144));
        Assert.Equal(5632, device.ReadAheadBytes);
    }

    /// <summary>
    /// The bytes read ahead answer reads only while the completion of the read that took them runs, and only while they
    /// are still in the thread's buffer: the file may hold other bytes there once it returns, and a read from inside it
    /// of another record fills the buffer anew.
    /// </summary>
    [Fact]
    public void BytesReadAhead_AnswerNoReadAfterTheirCompletion_NorAfterAReadFromInsideItFilledTheBufferAgain()
    {
        if (!NonBlockingFileRead.MayBeSupported)
        {
            return;
        }

        using var temp = new TempDirectory();
        using var device = Open(temp.Path);
        byte[] written = Pattern(64 * 1024, seed: 19);
        Write(device, written, address: 0);
        _ = ReadTwiceAsFasterDoes(device, 4096, 512, 1536); // learns to read 1,024 bytes ahead

        // After the completion: the file's bytes, not the ones read ahead.
        using (var buffer = new AlignedBuffer(512))
        {
            Assert.Equal(0u, ReadAndWait(device, 8192, buffer));
        }

        byte[] rewritten = Pattern(4096, seed: 23);
        Write(device, rewritten, address: 8192);
        using (var buffer = new AlignedBuffer(1024))
        {
            Assert.Equal(0u, ReadAndWait(device, 8192 + 512, buffer));
            Assert.Equal(rewritten.AsSpan(512, 1024).ToArray(), buffer.ToArray());
        }

        // From inside a completion: a read of another record, then one inside the first read's range.
        long answeredAhead = device.ReadsAnsweredAhead;
        using var outer = new AlignedBuffer(512);
        using var other = new AlignedBuffer(512);
        using var inside = new AlignedBuffer(512);
        device.ReadAsync(16384UL, outer.Pointer, 512, (_, _, _) =>
        {
            Assert.Equal(0u, ReadAndWait(device, 40960, other));
            Assert.Equal(0u, ReadAndWait(device, 16384 + 512, inside));
        }, null!);

        Assert.Equal(written.AsSpan(40960, 512).ToArray(), other.ToArray());
        Assert.Equal(written.AsSpan(16384 + 512, 512).ToArray(), inside.ToArray());
        Assert.Equal(answeredAhead, device.ReadsAnsweredAhead);
    }

    /// <summary>A store of 1 KB records reads each from the disk in one read of the file, and every value whole.</summary>
    [Fact]
    public async Task AStoresReadsOfKilobyteRecordsOnDisk_TakeOneReadOfTheFileEach_AndReturnEveryValue()
    {
        using var temp = new TempDirectory();
        (FasterRecordStore opened, PageCacheFirstDevice? segments) = OpenLowMemoryStore(temp.Path);
        await using FasterRecordStore store = opened;
        const int Records = 2_000;

        // Lengths that put records across sectors anywhere.
        static byte[] ValueOf(int i) => Pattern(700 + (i % 700), seed: i);
        for (int i = 0; i < Records; i++)
        {
            await store.UpsertAsync(BitConverter.GetBytes(i), ValueOf(i));
        }

        for (int i = 0; i < Records; i++)
        {
            (bool found, PooledBuffer value) = await store.ReadAsync(BitConverter.GetBytes(i));
            Assert.True(found);
            Assert.Equal(ValueOf(i), value.Span.ToArray());
            value.Return();
        }

        Assert.NotNull(segments);
        if (NonBlockingFileRead.MayBeSupported)
        {
            Assert.True(segments.ReadsAnsweredAhead > Records * 9 / 10, $"{segments.ReadsAnsweredAhead} second reads copied from the bytes read ahead, {segments.ReadsAnsweredNow} read from the file, {segments.ReadsPassedOn} passed on");
            Assert.True(segments.ReadsAnsweredNow < Records * 11 / 10, $"{segments.ReadsAnsweredNow} reads of the file for {Records} records");
        }
    }

    /// <summary>
    /// Reads <paramref name="firstLength"/> bytes at <paramref name="address"/> as FASTER reads a record on disk, and from
    /// inside that read's completion <paramref name="secondLength"/> bytes at the same address, as FASTER does when the
    /// record is longer than its first read; returns what the second read got.
    /// </summary>
    private static byte[] ReadTwiceAsFasterDoes(PageCacheFirstDevice device, long address, int firstLength, int secondLength)
    {
        using var first = new AlignedBuffer(firstLength);
        using var second = new AlignedBuffer(secondLength);
        uint secondError = uint.MaxValue;
        uint firstError = ReadAndWait(device, address, first, (_, _, _) => secondError = ReadAndWait(device, address, second));
        Assert.Equal(0u, firstError);
        Assert.Equal(0u, secondError);
        return second.ToArray();
    }

    /// <summary>A low-memory store, and the page-cache device its log's segments are read through.</summary>
    private static (FasterRecordStore Store, PageCacheFirstDevice? Segments) OpenLowMemoryStore(string directory)
    {
        PageCacheFirstDevice? segments = null;
        StoreSettings settings = StoreSettingsValidator.Validate(StoreFactory.LowMemory(directory)) with
        {
            WrapDevice = (inner, role) =>
            {
                if (role == DeviceRole.HybridLog)
                {
                    segments = inner as PageCacheFirstDevice;
                }

                return inner;
            },
        };
        FasterRecordStore store = StoreOpener.Open(settings, NullLogger.Instance);
        return (store, segments);
    }

    private static PageCacheFirstDevice Open(string directory, LightEpoch? epoch = null)
    {
        var device = new PageCacheFirstDevice(Devices.CreateLogDevice(Path.Combine(directory, "segments.log"), preallocateFile: false, deleteOnClose: true));
        device.Initialize(1L << SegmentSizeBits, epoch);
        return device;
    }

    /// <summary>This process's descriptors still open on <paramref name="path"/> after its deletion: each keeps the file's blocks allocated.</summary>
    private static string[] OpenHandlesOnDeletedFile(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return [];
        }

        var open = new System.Collections.Generic.List<string>();
        foreach (string descriptor in Directory.GetFiles("/proc/self/fd"))
        {
            string? target = new FileInfo(descriptor).LinkTarget;
            if (target == path + " (deleted)")
            {
                open.Add(descriptor);
            }
        }

        return [.. open];
    }
}
