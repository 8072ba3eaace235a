using System;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

public class LiveBytesEstimatorTests
{
    private const int Keys = 4_000;

    private static byte[] Key(int i) => System.BitConverter.GetBytes(i);

    private static async Task WriteEveryKeyAsync(FasterRecordStore store)
    {
        for (int key = 0; key < Keys; key++)
        {
            await store.UpsertAsync(Key(key), new byte[100]);
        }
    }

    [Fact]
    public async Task ALogWithEveryOtherKeyRewritten_SamplesAboutHalfLive()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await WriteEveryKeyAsync(store);

        long firstRoundEnd = store.FasterKV.Log.TailAddress;
        for (int key = 0; key < Keys; key += 2)
        {
            await store.UpsertAsync(Key(key), new byte[100]);
        }

        LiveBytesSample sample = await store.LiveBytes.SampleAsync(store.FasterKV.Log.BeginAddress, firstRoundEnd);

        Assert.True(sample.SampledBytes > 0);
        Assert.InRange(sample.LiveFraction, 0.4, 0.6);
    }

    [Fact]
    public async Task DeletedKeys_AreNotLive_NorAreTheirDeletes()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await WriteEveryKeyAsync(store);

        for (int key = 0; key < Keys; key++)
        {
            await store.DeleteAsync(Key(key));
        }

        long readOnly = store.FasterKV.Log.SafeReadOnlyAddress;
        LiveBytesSample sample = await store.LiveBytes.SampleAsync(store.FasterKV.Log.BeginAddress, readOnly);

        Assert.True(sample.SampledBytes > 0);
        Assert.Equal(0, sample.LiveBytes);
    }

    /// <summary>
    /// Writers go on while an estimate reads the disk. What they append then replaces live records rather than adding to
    /// them; counting it live once made an estimate of unpaced overwrites grow with the log it should bound, and the
    /// disk went to 32 times the live data (disk-timeline, docs/benchmarks.md).
    /// </summary>
    [Fact]
    public async Task WhatWritersAppendWhileTheEstimateReads_IsNotCountedLive()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.OpenLowMemoryWithFaultInjection(temp.Path, out FaultInjectingDevice segments);
        await WriteEveryKeyAsync(store);
        long liveBytes = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;

        // The estimate's first read from the disk waits until the writers below have rewritten every key ten times.
        segments.HoldReads();
        Task<long> estimate = store.LiveBytes.EstimateAsync();
        Assert.True(await WaitUntilAsync(() => segments.HeldReads > 0), "the estimate never read the disk");
        long tailBefore = store.FasterKV.Log.TailAddress;
        for (int round = 0; round < 10; round++)
        {
            await WriteEveryKeyAsync(store);
        }

        long appended = store.FasterKV.Log.TailAddress - tailBefore;
        segments.StopHoldingNewReads();
        segments.ReleaseReads();
        long estimated = await estimate.WaitAsync(TimeSpan.FromSeconds(30));

        Assert.True(appended >= 9 * liveBytes, $"only {appended} bytes appended");
        Assert.True(estimated <= 2 * liveBytes, $"estimated {estimated} live bytes for a log of {liveBytes} bytes, all live when the estimate began, while writers appended {appended}");
    }

    /// <summary>An estimate waiting for the disk ends when its token is cancelled, though the disk still holds its read.</summary>
    [Fact]
    public async Task AnEstimateWaitingForTheDisk_EndsWhenCancelled()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.OpenLowMemoryWithFaultInjection(temp.Path, out FaultInjectingDevice segments);
        await WriteEveryKeyAsync(store);
        using var cancel = new System.Threading.CancellationTokenSource();

        segments.HoldReads();
        try
        {
            Task<long> estimate = store.LiveBytes.EstimateAsync(cancel.Token);
            Assert.True(await WaitUntilAsync(() => segments.HeldReads > 0), "the estimate never read the disk");
            cancel.Cancel();

            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => estimate.WaitAsync(TimeSpan.FromSeconds(30)));
        }
        finally
        {
            segments.ReleaseReads();
        }
    }

    /// <summary>An estimate that reads the disk as it fails ends with the store's typed fault, as its contract says.</summary>
    [Fact]
    public async Task AnEstimateWhoseReadsFail_ThrowsStoreFaulted()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.OpenLowMemoryWithFaultInjection(temp.Path, out FaultInjectingDevice segments);
        await WriteEveryKeyAsync(store);

        segments.FailReads(FaultInjectingDevice.InputOutputError);

        var error = await Assert.ThrowsAsync<StoreFaultedException>(() => store.LiveBytes.EstimateAsync().WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Contains("read", error.Message, StringComparison.Ordinal);
    }

    private static async Task<bool> WaitUntilAsync(Func<bool> condition)
    {
        for (int i = 0; i < 1_000 && !condition(); i++)
        {
            await Task.Delay(10);
        }

        return condition();
    }

    /// <summary>
    /// FASTER's scan of a window on the disk loaded the window's page into a frame of its own, a pinned and zeroed array
    /// the size of a page, and read the page from its first byte, for 64 records: with 8 MB pages a sample allocated
    /// 128 MB. A window on the disk is now read from the device a chunk at a time, its values stepped over, and must find
    /// exactly what FASTER's scan finds: values smaller and larger than a chunk, every other key rewritten.
    /// </summary>
    [Theory]
    [InlineData(1_000)]
    [InlineData(100_000)]
    public async Task WindowsOnTheDisk_AreReadAChunkAtATime_AndFindWhatFastersScanFinds(int valueBytes)
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(temp.Path);
        options.PageSizeBits = 20;
        options.MemorySizeBits = 21;
        options.SegmentSizeBits = 22;
        await using var store = StoreFactory.OpenWithFaultInjection(options, out FaultInjectingDevice segments);
        int keys = (20 << 20) / valueBytes;
        for (int key = 0; key < keys; key++)
        {
            await store.UpsertAsync(Key(key), new byte[valueBytes]);
        }

        long firstRoundEnd = store.FasterKV.Log.TailAddress;
        for (int key = 1; key < keys; key += 2)
        {
            await store.UpsertAsync(Key(key), new byte[valueBytes]);
        }

        long begin = store.FasterKV.Log.BeginAddress;
        long until = Math.Min(firstRoundEnd, store.FasterKV.Log.HeadAddress);
        segments.ForgetReads();
        LiveBytesSample fromTheDevice = await store.LiveBytes.SampleAsync(begin, until);
        long largestRead = segments.LargestRead;
        var throughFastersScan = new LiveBytesEstimator(store.FasterKV, device: null, store.NewSession, new StoreFault(), options.PageSizeBits);
        LiveBytesSample fromTheScan = await throughFastersScan.SampleAsync(begin, until);

        Assert.True(until - begin >= 16L << 20, $"only {until - begin} bytes of the first round's log on the disk");
        Assert.Equal(fromTheScan, fromTheDevice);
        Assert.InRange(fromTheDevice.LiveFraction, 0.4, 0.6);

        // No read longer than a chunk, or than a record a check reads whole: the pages FASTER's scan read were 1 MB.
        Assert.InRange(largestRead, 1, Math.Max(DiskWindowReader.ChunkBytes, valueBytes + 4096));
    }

    [Fact]
    public async Task AnEmptyStretch_SamplesNothing_AndCountsAsLive()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));

        LiveBytesSample sample = await store.LiveBytes.SampleAsync(store.FasterKV.Log.BeginAddress, store.FasterKV.Log.BeginAddress);

        Assert.Equal(0, sample.SampledBytes);
        Assert.Equal(1, sample.LiveFraction);
    }

    /// <summary>
    /// The estimate's checkers run side by side. A check that memory or the page cache answers completes on its caller's
    /// thread, so checkers started one after another on one thread each ran to the end before the next began: the first
    /// took every record. Here the first checker's session waits (up to ten seconds) for a second checker to open one.
    /// </summary>
    [Fact]
    public async Task TheEstimatesCheckers_RunSideBySide()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(temp.Path);
        await using var store = StoreFactory.Open(options);
        await WriteEveryKeyAsync(store);
        int sessionsOpened = 0;
        bool secondOpenedBesideTheFirst = false;
        var estimator = new LiveBytesEstimator(
            store.FasterKV,
            device: null,
            () =>
            {
                if (Interlocked.Increment(ref sessionsOpened) == 1)
                {
                    secondOpenedBesideTheFirst = SpinWait.SpinUntil(() => Volatile.Read(ref sessionsOpened) >= 2, TimeSpan.FromSeconds(10));
                }

                return store.NewSession();
            },
            new StoreFault(),
            options.PageSizeBits);

        LiveBytesSample sample = await estimator.SampleAsync(store.FasterKV.Log.BeginAddress, store.FasterKV.Log.TailAddress);

        Assert.True(sample.SampledBytes > 0);
        Assert.True(secondOpenedBesideTheFirst, "the first checker ran alone: the others started only after it had checked every record");
    }
}
