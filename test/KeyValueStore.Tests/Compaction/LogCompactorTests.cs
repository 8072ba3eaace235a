using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Compaction;
using KeyValueStore.Concurrency;
using KeyValueStore.Durability;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Durability;
using KeyValueStore.Tests.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Compaction;

public class LogCompactorTests
{
    private const int SkippedEvent = 10;
    private const int CompactedEvent = 11;
    private const int ThresholdChangedEvent = 12;
    private const int CompactionFailedEvent = 13;
    private const int BackPressureEvent = 14;

    private static byte[] Key(int i) => BitConverter.GetBytes(i);

    private static async Task<byte[]?> ReadBytesAsync(FasterRecordStore store, int key)
    {
        (bool found, PooledBuffer value) = await store.ReadAsync(Key(key));
        if (!found)
        {
            return null;
        }

        byte[] copy = value.Span.ToArray();
        value.Return();
        return copy;
    }

    /// <summary>A value of <paramref name="length"/> bytes that differ by key and position: a copy with its end cut off or shifted shows.</summary>
    private static byte[] PatternedValue(int key, int length)
    {
        var value = new byte[length];
        for (int i = 0; i < value.Length; i++)
        {
            value[i] = (byte)(((key * 31) + i) % 251);
        }

        return value;
    }

    private static long DirectoryBytes(string directory) =>
        new DirectoryInfo(directory).EnumerateFiles("*", SearchOption.AllDirectories).Sum(file => file.Length);

    /// <summary>FASTER deletes truncated segments on a background task; wait until none below the begin address is left.</summary>
    private static Task WaitForTruncationAsync(FasterRecordStore store, int segmentSizeBits) =>
        Eventually.TrueAsync(
            () => store.Layout!.Segments().All(segment => segment.Number >= store.FasterKV.Log.BeginAddress >> segmentSizeBits),
            () => "truncated segment files were not deleted");

    private static Task WaitForEventAsync(RecordingLogger logger, Func<IReadOnlyList<int>, bool> condition) =>
        Eventually.TrueAsync(() => condition(logger.EventIds), () => "expected log events did not arrive: " + string.Join(",", logger.EventIds));

    [Fact]
    public async Task OverwriteHeavyWorkload_AfterCompaction_FilesHoldAtMostThreeTimesTheLiveData()
    {
        using var temp = new TempDirectory();
        const int Keys = 10_000;
        const int Overwrites = 50;
        const int ValueSize = 1024;
        const int SegmentSizeBits = 20;
        var options = StoreFactory.LowMemory(temp.Path);
        options.PageSizeBits = 16;
        options.MemorySizeBits = 20;      // 1 MB in memory
        options.SegmentSizeBits = SegmentSizeBits;
        await using var store = StoreFactory.Open(options);
        long diskBytesFreed = 0;

        for (int round = 0; round < Overwrites; round++)
        {
            await Task.WhenAll(Enumerable.Range(0, Keys).Select(key =>
            {
                byte[] value = new byte[ValueSize];
                BitConverter.TryWriteBytes(value, key);
                BitConverter.TryWriteBytes(value.AsSpan(4), round);
                return store.UpsertAsync(Key(key), value).AsTask();
            }));

            if (round % 5 == 4)
            {
                diskBytesFreed += (await store.CompactAsync()).DiskBytesFreed;
            }
        }

        await WaitForTruncationAsync(store, SegmentSizeBits);

        long liveBytes = Keys * (long)(sizeof(int) + ValueSize);
        long writtenBytes = liveBytes * Overwrites;
        long onDisk = DirectoryBytes(temp.Path);
        Assert.True(diskBytesFreed > writtenBytes / 2, $"compaction released only {diskBytesFreed} of {writtenBytes} bytes written");
        Assert.True(onDisk <= 3 * liveBytes, $"{onDisk} bytes of files for {liveBytes} bytes of live data");

        for (int key = 0; key < Keys; key++)
        {
            byte[]? value = await ReadBytesAsync(store, key);
            Assert.NotNull(value);
            Assert.Equal(key, BitConverter.ToInt32(value, 0));
            Assert.Equal(Overwrites - 1, BitConverter.ToInt32(value, 4));
        }
    }

    [Fact]
    public async Task Compaction_NeverResurrectsDeletedKeys_NorRevertsUpdatedOnes()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        const int Keys = 3_000;
        for (int key = 0; key < Keys; key++)
        {
            await store.UpsertAsync(Key(key), Encoding.UTF8.GetBytes($"v1-{key}"));
        }

        for (int key = 0; key < Keys; key += 2)
        {
            Assert.True(await store.DeleteAsync(Key(key)));
        }

        for (int key = 0; key < Keys; key += 3)
        {
            await store.UpsertAsync(Key(key), Encoding.UTF8.GetBytes($"v2-{key}"));
        }

        for (int pass = 0; pass < 3; pass++)
        {
            CompactionResult result = await store.CompactAsync();
            Assert.True(pass > 0 || result.Compacted);

            for (int key = 0; key < Keys; key++)
            {
                string? expected = key % 3 == 0 ? $"v2-{key}" : key % 2 == 0 ? null : $"v1-{key}";
                byte[]? actual = await ReadBytesAsync(store, key);
                Assert.Equal(expected, actual is null ? null : Encoding.UTF8.GetString(actual));
            }
        }
    }

    /// <summary>
    /// With 64 hash buckets, many keys share a bucket's chain with other keys, so reading one from the disk steps past
    /// other keys' records. FASTER 2.6.5 then reports the address the read started at, not the record it found: a
    /// compaction that judged "still the latest" by that address dropped those keys.
    /// </summary>
    [Fact]
    public async Task Compaction_OfKeysWhoseHashChainsRunThroughOtherKeysOnDisk_KeepsEveryKey()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(temp.Path);
        options.IndexNumBuckets = 1 << 6;
        await using var store = StoreFactory.Open(options);
        await WriteEveryCollidingKeyTwiceAsync(store);

        CompactionResult result = await store.CompactAsync();

        Assert.True(result.Compacted);
        await AssertTheSecondRoundOfEveryCollidingKeyAsync(store);
    }

    /// <summary>
    /// The same chains through other keys' records, compacted with every writer held back (the log over the
    /// back-pressure bound from the start), the path that once used FASTER's own lookup compaction.
    /// </summary>
    [Fact]
    public async Task CompactionUnderBackPressure_OfKeysWhoseHashChainsRunThroughOtherKeysOnDisk_KeepsEveryKey()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(temp.Path);
        options.IndexNumBuckets = 1 << 6;
        await using var store = StoreFactory.Open(options);
        await WriteEveryCollidingKeyTwiceAsync(store);

        var policy = new CompactionThresholdPolicy(1);
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(store, policy, new RecordingLogger(), store.CopyLiveRecordsAsync);
        CompactionResult result = await compactor.CompactNowAsync();

        Assert.True(result.Compacted);
        Assert.True(compactor.Statistics.BackPressure > TimeSpan.Zero, "the writers must have been held for every slice");
        await AssertTheSecondRoundOfEveryCollidingKeyAsync(store);
    }

    [Fact]
    public async Task CompactionRunningBesideConcurrentWritersAndDeleters_LeavesExactlyTheModel()
    {
        using var temp = new TempDirectory();
        var options = StoreFactory.LowMemory(temp.Path);
        options.MemorySizeBits = 14;
        await using var store = StoreFactory.Open(options);
        const int Workers = 4;
        const int KeysPerWorker = 300;
        const int OperationsPerWorker = 6_000;
        var models = new Dictionary<int, string>[Workers];
        var wrongDeleteStatuses = new List<string>();
        using var start = new Barrier(Workers + 1);
        int writersDone = 0;
        int compactions = 0;

        Task compactor = Task.Run(async () =>
        {
            start.SignalAndWait();
            while (Volatile.Read(ref writersDone) < Workers)
            {
                if ((await store.CompactAsync()).Compacted)
                {
                    compactions++;
                }
            }
        });

        Task[] writers = Enumerable.Range(0, Workers).Select(worker => Task.Run(async () =>
        {
            // Each worker owns the keys congruent to it, so its model is exact without locks.
            var model = models[worker] = new Dictionary<int, string>();
            var random = new Random(1234 + worker);
            start.SignalAndWait();
            for (int op = 0; op < OperationsPerWorker; op++)
            {
                int key = (random.Next(KeysPerWorker) * Workers) + worker;
                if (random.Next(10) < 7)
                {
                    string value = $"{key}:{op}:" + new string('x', random.Next(200));
                    await store.UpsertAsync(Key(key), Encoding.UTF8.GetBytes(value));
                    model[key] = value;
                }
                else
                {
                    bool existed = await store.DeleteAsync(Key(key));
                    if (existed != model.Remove(key))
                    {
                        lock (wrongDeleteStatuses)
                        {
                            wrongDeleteStatuses.Add($"key {key} op {op}: store said {existed}");
                        }
                    }
                }
            }

            Interlocked.Increment(ref writersDone);
        })).ToArray();

        await Task.WhenAll(writers.Append(compactor)).WaitAsync(TimeSpan.FromMinutes(5));

        Assert.True(compactions > 0, "the test needs compactions to have overlapped the writers");
        Assert.Empty(wrongDeleteStatuses);
        for (int worker = 0; worker < Workers; worker++)
        {
            for (int slot = 0; slot < KeysPerWorker; slot++)
            {
                int key = (slot * Workers) + worker;
                byte[]? actual = await ReadBytesAsync(store, key);
                Assert.Equal(models[worker].GetValueOrDefault(key), actual is null ? null : Encoding.UTF8.GetString(actual));
            }
        }
    }

    /// <summary>
    /// Regression: FASTER 2.6.5's Lookup compaction reads the last on-disk page of its range only up to the requested
    /// address. A record crossing that address was copied to the tail with its end zeroed, and the begin address could
    /// land inside it. The crash harness found both (a wrong value, then a recovery that crashed the process).
    /// </summary>
    [Fact]
    public async Task ScheduledCompactionOfRecordsOnDisk_CopiesEveryLiveValueWhole()
    {
        using var temp = new TempDirectory();
        var options = StoreFactory.LowMemory(temp.Path);
        options.InitialLogCompactionThresholdBytes = 1;
        await using var store = StoreFactory.Open(options);
        const int keys = 3_000;

        // Lengths vary so that record boundaries fall anywhere relative to pages and sectors.
        static byte[] ValueOf(int key) => PatternedValue(key, 700 + (key % 500));

        // Three rounds, the last one read back: the first two are garbage, and a log all live would need no pass.
        for (int round = 2; round >= 0; round--)
        {
            for (int key = 0; key < keys; key++)
            {
                await store.UpsertAsync(Key(key), ValueOf(key + (round * keys)));
            }
        }

        long beginBefore = store.FasterKV.Log.BeginAddress;
        for (int step = 0; step < 5; step++)
        {
            await store.Compactor.RunScheduledStepAsync();
        }

        Assert.True(store.FasterKV.Log.BeginAddress > beginBefore, "the steps compacted nothing, so the test proves nothing");
        for (int key = 0; key < keys; key++)
        {
            Assert.Equal(ValueOf(key), await ReadBytesAsync(store, key));
        }
    }

    [Fact]
    public async Task ScheduledSteps_SkipWhenSmall_CompactWhenLarge_AndSetTheThresholdFromTheLiveData()
    {
        using var temp = new TempDirectory();
        var logger = new RecordingLogger();
        await using var store = StoreFactory.Open(LowMemoryWithA64KilobyteThreshold(temp.Path), logger);
        const int Keys = 5_000;
        long liveBytes = Keys * PinnedRecord.SizeInLog(sizeof(int), 100);

        await store.Compactor.RunScheduledStepAsync(); // an empty log: below the minimum
        for (int round = 0; round < 3; round++)
        {
            for (int key = 0; key < Keys; key++)
            {
                await store.UpsertAsync(Key(key), new byte[100]);
            }
        }

        await store.Compactor.RunScheduledStepAsync(); // 1.8 MB of log, a third of it live: a pass
        await store.Compactor.RunScheduledStepAsync(); // the log holds only live data now: below twice that

        // The fresh estimate before the pass raises the threshold from the minimum; the pass's own estimate may leave it
        // where that put it (no second event then) or move it.
        int[] events = logger.EventIds.Where(id => id is >= SkippedEvent and <= ThresholdChangedEvent).ToArray();
        Assert.Equal(new[] { SkippedEvent, ThresholdChangedEvent, CompactedEvent }, events.Take(3));
        Assert.Equal(SkippedEvent, events[^1]);
        Assert.InRange(events.Length, 4, 5);
        long estimate = store.Compactor.LiveBytesEstimate!.Value;

        // The log left is the copies, all live: sampled pages count their end padding as dead (a little under), and the
        // mutable part counts live whole (over by at most the 8 KB of memory).
        Assert.InRange(estimate, liveBytes - (liveBytes / 10), liveBytes + (8 << 10));
        Assert.Equal(2 * estimate, store.Compactor.ThresholdBytes);
    }

    /// <summary>
    /// A load of new keys leaves a log all live: a pass over it would copy every record and give nothing back. The step
    /// estimates the live bytes first and raises the threshold above the log instead. (A pass started from the estimate
    /// of an earlier, smaller log once copied a whole 35 MB load through a 20-second read run, and halved its reads:
    /// docs/benchmarks.md.)
    /// </summary>
    [Fact]
    public async Task AScheduledStep_OverALogOfNewKeysAllLive_CopiesNothing_AndRaisesTheThresholdAboveIt()
    {
        using var temp = new TempDirectory();
        var logger = new RecordingLogger();
        await using var store = StoreFactory.Open(LowMemoryWithA64KilobyteThreshold(temp.Path), logger);
        const int Keys = 5_000;
        await WritePatternedKeysAsync(store, Keys);
        long begin = store.FasterKV.Log.BeginAddress;
        long logBytes = store.Compactor.LogBytes;

        await store.Compactor.RunScheduledStepAsync();

        Assert.Equal(0, store.Compactor.Statistics.Passes);
        Assert.Equal(begin, store.FasterKV.Log.BeginAddress);
        Assert.True(store.Compactor.ThresholdBytes > logBytes, $"threshold {store.Compactor.ThresholdBytes} for a log of {logBytes} bytes");
        Assert.Equal(new[] { ThresholdChangedEvent, SkippedEvent }, logger.EventIds.Where(id => id is >= SkippedEvent and <= ThresholdChangedEvent));
        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    /// <summary>
    /// Old keys all live, then a few keys overwritten again and again: the fresh estimate before the pass sees the newer
    /// garbage, so the pass still runs, over the whole read-only region, and leaves the log about as long as its live data.
    /// </summary>
    [Fact]
    public async Task AfterALoadFoundAllLive_OverwritesOfAFewKeys_AreStillCompacted()
    {
        using var temp = new TempDirectory();
        var options = LowMemoryWithA64KilobyteThreshold(temp.Path);
        await using var store = StoreFactory.Open(options);
        const int Keys = 5_000;
        const int HotKeys = 100;
        const int Rounds = 100;
        long liveBytes = Keys * PinnedRecord.SizeInLog(sizeof(int), 100);
        await WritePatternedKeysAsync(store, Keys);
        await store.Compactor.RunScheduledStepAsync();
        Assert.Equal(0, store.Compactor.Statistics.Passes);

        // 1.2 MB more of log, all but the last round garbage.
        for (int round = 1; round <= Rounds; round++)
        {
            for (int key = 0; key < HotKeys; key++)
            {
                await store.UpsertAsync(Key(key), PatternedValue(key + round, 100));
            }
        }

        await store.Compactor.RunScheduledStepAsync();

        Assert.True(store.Compactor.Statistics.Passes >= 1, "no pass ran over the overwrites");
        long bound = liveBytes + (liveBytes / 10) + (1L << options.MemorySizeBits);
        Assert.True(store.Compactor.LogBytes <= bound, $"the log holds {store.Compactor.LogBytes} bytes for {liveBytes} live bytes (bound {bound})");
        for (int key = 0; key < Keys; key++)
        {
            Assert.Equal(PatternedValue(key < HotKeys ? key + Rounds : key, 100), await ReadBytesAsync(store, key));
        }
    }

    /// <summary>The estimate before a pass fails as a pass does: as the library's own exception, the store unchanged.</summary>
    [Fact]
    public async Task AFailedEstimateBeforeAPass_ReachesTheCallerAsCompactionFailed_AndCompactsNothing()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        const int Keys = 2_000;
        await WritePatternedKeysAsync(store, Keys);
        long begin = store.FasterKV.Log.BeginAddress;
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            new CompactionThresholdPolicy(minimumThresholdBytes: 1),
            new RecordingLogger(),
            store.CopyLiveRecordsAsync,
            estimate: _ => Task.FromException<long>(new IOException("injected estimate failure")));

        var failure = await Assert.ThrowsAsync<CompactionFailedException>(() => compactor.RunScheduledStepAsync());

        Assert.Equal("injected estimate failure", failure.InnerException?.Message);
        Assert.Equal(0, compactor.Statistics.Passes);
        Assert.Equal(begin, store.FasterKV.Log.BeginAddress);
        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    /// <summary>
    /// A step's live estimates, the fresh one before a pass that would compact blind (1) and the one after the pass (2),
    /// take the step's token: the store's disposal cancels it and must not wait for an estimate under way, which reads
    /// the disk. They once took no token.
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public async Task AStepsLiveEstimate_EndsWhenTheStepIsCancelled(int waitingEstimate)
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        using var cancel = new CancellationTokenSource();
        int estimates = 0;
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            new CompactionThresholdPolicy(minimumThresholdBytes: 1),
            new RecordingLogger(),
            store.CopyLiveRecordsAsync,
            estimate: async token =>
            {
                // An estimate of one byte leaves the threshold under the log, so the pass runs after the first.
                if (Interlocked.Increment(ref estimates) < waitingEstimate)
                {
                    return 1;
                }

                // A minute, not for good: a step that ignored its token would otherwise hold the compactor's disposal for good.
                await Task.Delay(TimeSpan.FromMinutes(1), token);
                return 1;
            });
        await WritePatternedKeysAsync(store, 2_000);

        Task step = compactor.RunScheduledStepAsync(cancel.Token);
        await Eventually.TrueAsync(() => Volatile.Read(ref estimates) == waitingEstimate, () => $"{estimates} estimates taken, waiting for estimate {waitingEstimate}");
        cancel.Cancel();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => step.WaitAsync(TimeSpan.FromSeconds(30)));
    }

    /// <summary>
    /// The threshold-changed event names the estimate the threshold follows, the median of the last passes' samples, not
    /// the last sample: a reader of the log compares it with the threshold beside it.
    /// </summary>
    [Fact]
    public async Task TheThresholdChangedEvent_NamesTheSteadiedEstimate_NotThePassesLastSample()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        var logger = new RecordingLogger();

        // Samples far above the log, so that twice the estimate sets the threshold: 1,000, 1,200, 1,200 and 950 MB. The
        // fourth pass follows the lower middle of the four (1,000 MB), which moves the threshold; its sample was 950 MB.
        var samples = new Queue<long>([1_000_000_000, 1_200_000_000, 1_200_000_000, 950_000_000]);
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            new CompactionThresholdPolicy(minimumThresholdBytes: 1),
            logger,
            store.CopyLiveRecordsAsync,
            estimate: _ => Task.FromResult(samples.Dequeue()));

        for (int pass = 0; pass < 4; pass++)
        {
            await WritePatternedKeysAsync(store, 2_000);
            Assert.True((await compactor.CompactNowAsync()).Compacted, $"pass {pass + 1} compacted nothing");
        }

        Assert.Empty(samples);
        Assert.Equal(
            ["1000000000", "1200000000", "1000000000"],
            logger.Events.Where(e => e.Id.Id == ThresholdChangedEvent).Select(e => e.Message.Split(' ')[^1].TrimEnd('.')));
        Assert.Equal(2_000_000_000, compactor.ThresholdBytes);
    }

    /// <summary>
    /// A pass that ends in a stretch of dead records leaves a log whose newer part is all live. The estimate once took the
    /// whole log left to be as live as the pass's last slice, and came out near nothing; it now samples that log.
    /// </summary>
    [Fact]
    public async Task LiveBytesEstimate_AfterAPassEndingInDeadRecords_MeasuresTheLiveLogItLeft()
    {
        using var temp = new TempDirectory();
        var options = LowMemoryWithA64KilobyteThreshold(temp.Path);
        await using var store = StoreFactory.Open(options);
        const int Keys = 2_000;
        long liveBytes = Keys * PinnedRecord.SizeInLog(sizeof(int), 100);

        async Task WriteEveryKeyAsync(byte round)
        {
            for (int key = 0; key < Keys; key++)
            {
                await store.UpsertAsync(Key(key), Enumerable.Repeat(round, 100).ToArray());
            }
        }

        // A first pass compacts all of two rounds and finds a third of them live; two more rounds follow it.
        await WriteEveryKeyAsync(1);
        await WriteEveryKeyAsync(2);
        await WriteEveryKeyAsync(3);
        await store.Compactor.RunScheduledStepAsync();
        await WriteEveryKeyAsync(4);
        await WriteEveryKeyAsync(5);

        // The next pass is sized to give back the excess at a third live: it ends inside round 4, where nothing is live,
        // and leaves the rest of round 4 (dead) and round 5 (live).
        long begin = store.FasterKV.Log.BeginAddress;
        await store.Compactor.RunScheduledStepAsync();
        Assert.True(store.FasterKV.Log.BeginAddress > begin, "the second pass compacted nothing, so the test proves nothing");

        long estimate = store.Compactor.LiveBytesEstimate!.Value;
        Assert.InRange(estimate, liveBytes - (liveBytes / 5), liveBytes + (liveBytes / 5) + (8 << 10));
        for (int key = 0; key < Keys; key++)
        {
            Assert.Equal(Enumerable.Repeat((byte)5, 100).ToArray(), await ReadBytesAsync(store, key));
        }
    }

    /// <summary>
    /// Jering's policy compacted the oldest fifth per step and doubled its threshold every five steps: under overwrites
    /// the log kept growing (docs/benchmarks.md). Now each step compacts the whole read-only region when the log passes
    /// the store's ratio of the live estimate (<see cref="MixedStorageKVStoreOptions.CompactionLogToLiveRatio"/>), so after
    /// every step the log is back within that bound.
    /// </summary>
    [Theory]
    [InlineData(2.0)]
    [InlineData(1.5)]
    public async Task RoundsOfOverwrites_WithAScheduledStepAfterEach_KeepTheLogWithinTheRatioOfTheLiveDataPlusMemory(double ratio)
    {
        using var temp = new TempDirectory();
        var options = StoreFactory.LowMemory(temp.Path);
        options.MemorySizeBits = 16;
        options.InitialLogCompactionThresholdBytes = 1;
        options.CompactionLogToLiveRatio = ratio;
        await using var store = StoreFactory.Open(options);
        const int Keys = 2_000;
        const int Rounds = 30;
        long liveBytes = Keys * PinnedRecord.SizeInLog(sizeof(int), 100);
        long bound = (long)(ratio * ((liveBytes + (liveBytes / 10)) + (1L << options.MemorySizeBits)));
        long largest = 0;

        for (int round = 0; round < Rounds; round++)
        {
            for (int key = 0; key < Keys; key++)
            {
                byte[] value = new byte[100];
                BitConverter.TryWriteBytes(value, round);
                await store.UpsertAsync(Key(key), value);
            }

            await store.Compactor.RunScheduledStepAsync();
            long logBytes = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
            largest = Math.Max(largest, logBytes);
            Assert.True(logBytes <= bound, $"after round {round} the log holds {logBytes} bytes for {liveBytes} live bytes (bound {bound})");
        }

        Assert.True(largest > liveBytes, "the log never held more than its live data, so the test proves nothing");
        Assert.Equal((long)(ratio * store.Compactor.LiveBytesEstimate!.Value), store.Compactor.ThresholdBytes);
        for (int key = 0; key < Keys; key++)
        {
            Assert.Equal(Rounds - 1, BitConverter.ToInt32((await ReadBytesAsync(store, key))!, 0));
        }
    }

    /// <summary>No stop-the-world: while a pass copies, a write of the store completes, also of a key being copied.</summary>
    [Fact]
    public async Task APass_BelowTheBackPressureBound_HoldsNoWriter_WhileItCopies()
    {
        // A threshold far above the log: no back-pressure.
        PassSeen pass = await RunAPassWithAWriteStartingAsync(_ => AfterAPassThatGaveRoomBack(1L << 40), awaitTheWriteInTheFirstSlice: true, writeEveryKeyTwice: true);

        Assert.True(pass.Slices.Count >= 3, $"{pass.Slices.Count} slices");
        Assert.True(pass.Slices.All(slice => slice.WriteDone && !slice.WritersHeld), "a slice copied with the write not done: " + pass);
        Assert.Equal(TimeSpan.Zero, pass.Statistics.BackPressure);
        Assert.DoesNotContain(BackPressureEvent, pass.Logger.EventIds);
        Assert.Equal(1, pass.Statistics.Passes);
    }

    /// <summary>Back-pressure: while the log is over the bound, a pass keeps writers out of every slice that follows one giving room back.</summary>
    [Fact]
    public async Task APass_WhileTheLogIsOverTheBackPressureBound_KeepsTheWriterOut_WhileItsSlicesGiveRoomBack()
    {
        // A threshold of one byte: the log is always over the bound. The first round of writes is all superseded, so
        // every slice of it gives room back; the second is all live.
        PassSeen pass = await RunAPassWithAWriteStartingAsync(_ => AfterAPassThatGaveRoomBack(1), awaitTheWriteInTheFirstSlice: false, writeEveryKeyTwice: true);

        SliceSeen[] afterSlicesGivingRoomBack = pass.Slices.Where(slice => slice.FromAddress <= pass.FirstRoundEnd).ToArray();
        Assert.True(afterSlicesGivingRoomBack.Length >= 3, pass.ToString());
        Assert.True(afterSlicesGivingRoomBack.All(slice => slice.WritersHeld && !slice.WriteDone), "the write got in while the pass gave room back: " + pass);
        Assert.True(pass.Statistics.BackPressure > TimeSpan.Zero, "no back-pressure was counted");
        Assert.Contains(pass.Logger.Events, e => e.Id.Id == BackPressureEvent && e.Level == Microsoft.Extensions.Logging.LogLevel.Warning);
    }

    /// <summary>
    /// Back-pressure holds no writer beside a part almost all live: copied whole to the tail, it leaves the log as long,
    /// and writers held would wait for the rest of the pass and its live estimate (a bulk load of new keys was held for
    /// two thirds of its time, up to 170 ms at a time). Here over the bound from the start, on a store's first pass.
    /// </summary>
    [Fact]
    public async Task APass_OverTheBound_OfAPartAlmostAllLive_HoldsNoWriter_NorDoesItsLiveEstimate()
    {
        bool heldDuringTheEstimate = true;
        PassSeen pass = await RunAPassWithAWriteStartingAsync(
            _ => new CompactionThresholdPolicy(1),
            awaitTheWriteInTheFirstSlice: true,
            writeEveryKeyTwice: false,
            estimateWith: async store =>
            {
                heldDuringTheEstimate = store.Writes.IsClosed;
                return await store.LiveBytes.EstimateAsync();
            });

        Assert.True(pass.Slices.Count >= 3, $"{pass.Slices.Count} slices");
        Assert.True(pass.Slices.All(slice => !slice.WritersHeld), "a slice of live records held the writers: " + pass);
        Assert.False(heldDuringTheEstimate, "the live estimate after the pass held the writers");
        Assert.Equal(TimeSpan.Zero, pass.Statistics.BackPressure);
    }

    /// <summary>
    /// A store's first pass, over the bound, holds the writers from its first slice when the live estimate taken before it
    /// says the log is mostly garbage: without it the first slice let unpaced writers take the log far over the bound,
    /// and the hold after it was a run's longest.
    /// </summary>
    [Fact]
    public async Task AStoresFirstPass_OverTheBound_HoldsTheWritersFromItsFirstSlice_WhenTheLiveEstimateSaysTheLogIsMostlyGarbage()
    {
        PassSeen pass = await RunAPassWithAWriteStartingAsync(
            logBytes =>
            {
                var policy = new CompactionThresholdPolicy(1);
                policy.RecordEstimate(logBytes / 4);
                return policy;
            },
            awaitTheWriteInTheFirstSlice: false,
            writeEveryKeyTwice: true);

        Assert.True(pass.Slices[0].WritersHeld, "the first slice did not hold the writers: " + pass);
        Assert.False(pass.Slices[0].WriteDone, "the write got in before the first slice copied: " + pass);
    }

    /// <summary>After a pass that found its part almost all live, the next pass holds no writer before a slice gives room back.</summary>
    [Fact]
    public async Task APass_AfterOneThatFoundItsPartAlmostAllLive_HoldsNoWriter_UntilASliceGivesRoomBack()
    {
        PassSeen pass = await RunAPassWithAWriteStartingAsync(
            _ =>
            {
                var policy = new CompactionThresholdPolicy(1);
                policy.RecordPass(liveBytesEstimate: 0, logBytesLeft: 0, copiedBytes: 95, compactedBytes: 100);
                return policy;
            },
            awaitTheWriteInTheFirstSlice: true,
            writeEveryKeyTwice: true);

        Assert.False(pass.Slices[0].WritersHeld, "the first slice held the writers: " + pass);
        Assert.True(pass.Slices[1].WritersHeld, "the slice after one that gave room back did not hold the writers, over the bound: " + pass);
    }

    /// <summary>Back-pressure releases: once a slice brings the log back under the bound, the held writer gets in, before the pass ends.</summary>
    [Fact]
    public async Task BackPressure_ReleasesTheWriter_OnceASliceBringsTheLogUnderTheBound()
    {
        // Half of the log is superseded, so each slice shrinks it; the bound sits just under the log's size at the start.
        PassSeen pass = await RunAPassWithAWriteStartingAsync(
            logBytes => AfterAPassThatGaveRoomBack((logBytes - (1L << 20)) * 2 / 3),
            awaitTheWriteInTheFirstSlice: false,
            writeEveryKeyTwice: true);

        Assert.True(pass.Slices.Count >= 3, $"{pass.Slices.Count} slices");
        Assert.False(pass.Slices[0].WriteDone);
        Assert.True(pass.Slices[^1].WriteDone, "the write was held for the whole pass: " + pass);
        Assert.True(pass.Statistics.BackPressure > TimeSpan.Zero, "no back-pressure was counted");
    }

    /// <summary>
    /// Back-pressure does not wait for a slow slice to end: writers that push the log over the bound while a slice copies
    /// are held out within a few milliseconds. (Checked only between slices, one slice that took 0.6 s let unpaced writers
    /// take the log from 9 MB to 146 MB.)
    /// </summary>
    [Fact]
    public async Task BackPressure_EngagesWhileASliceCopies_OnceWritersPushTheLogOverTheBound()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await WritePatternedKeysAsync(store, 20_000);

        long logAtStart = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
        CompactionThresholdPolicy policy = AfterAPassThatGaveRoomBack(logAtStart);
        bool closedDuringTheFirstSlice = false;
        await using LogCompactor compactor = CompactorWhoseFirstSliceFirstRuns(
            store,
            policy,
            async (pace, writersHeld) =>
            {
                Assert.False(writersHeld);

                // Writers push the log past the bound while this slice is still copying.
                closedDuringTheFirstSlice = await PushTheLogOverTheBoundAsync(store, policy);
            });

        await compactor.CompactNowAsync();

        Assert.True(closedDuringTheFirstSlice, "the writers were not held until the slice ended");
        Assert.True(compactor.Statistics.BackPressure > TimeSpan.Zero);
        Assert.False(store.Writes.IsClosed, "the pass left the writers held");
        await AssertEveryPatternedKeyAsync(store, 20_000);
    }

    /// <summary>
    /// A slice that started with time to spare (its copies giving way) is hurried while it copies, once writers grow the
    /// log to where compaction hurries, short of the bound. (Hurried only at their start, slices beside unpaced writers
    /// gave way to their end: a store's first took 1.7 s for 3 MB while the disk went from twice the live data to 3.8 times.)
    /// </summary>
    [Fact]
    public async Task ASliceWithTimeToSpare_IsHurriedWhileItCopies_OnceWritersGrowTheLogToWhereCompactionHurries()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await WritePatternedKeysAsync(store, 20_000);

        CompactionThresholdPolicy policy = AfterAPassThatGaveRoomBack(store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress);
        bool gaveWayAtFirst = false;
        bool hurried = false;
        bool heldWhenHurried = true;
        await using LogCompactor compactor = CompactorWhoseFirstSliceFirstRuns(
            store,
            policy,
            async (pace, _) =>
            {
                gaveWayAtFirst = pace.GivesWay;
                await WriteUntilTheLogHoldsAsync(store, policy.HurriedFromBytes);
                hurried = await WaitUntilAsync(() => !pace.GivesWay, TimeSpan.FromSeconds(10));
                heldWhenHurried = store.Writes.IsClosed;
            });

        await compactor.RunScheduledStepAsync();

        Assert.True(gaveWayAtFirst, "the first slice, at the threshold, did not start with time to spare");
        Assert.True(hurried, "the slice still gave way with the log where compaction hurries");
        Assert.False(heldWhenHurried, "the writers were held under the bound");
        await AssertEveryPatternedKeyAsync(store, 20_000);
    }

    /// <summary>
    /// Writers are slowed in proportion as compaction falls behind: between where compaction hurries and the bound, a
    /// slice that copies holds them for short pauses and lets them go again, rather than not at all until the bound and
    /// then until the slice ends. (Held only at the bound, writers of 64-byte records waited up to 230 ms at a time.)
    /// </summary>
    [Fact]
    public async Task WritersBetweenWhereCompactionHurriesAndTheBound_ArePaused_AndGetIn_BeforeTheSliceEnds()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await WritePatternedKeysAsync(store, 20_000);

        CompactionThresholdPolicy policy = AfterAPassThatGaveRoomBack(store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress);
        LogCompactor? compactor = null;
        bool paused = false;
        bool aWriteGotIn = false;
        compactor = CompactorWhoseFirstSliceFirstRuns(
            store,
            policy,
            async (_, _) =>
            {
                // Three quarters of the way from where compaction hurries to the bound: writers are held three quarters of the time.
                await WriteUntilTheLogHoldsAsync(store, policy.HurriedFromBytes + ((policy.BackPressureBytes - policy.HurriedFromBytes) * 3 / 4));
                paused = await WaitUntilAsync(() => compactor!.Statistics.BackPressure > TimeSpan.Zero, TimeSpan.FromSeconds(10));

                // The slice is still here, so a write that completes was let go before the slice ended.
                aWriteGotIn = await store.UpsertAsync(Key(0), PatternedValue(0, 100)).AsTask().WaitAsync(TimeSpan.FromSeconds(10)).ContinueWith(write => write.IsCompletedSuccessfully);
            });
        await using (compactor)
        {
            await compactor.RunScheduledStepAsync();
        }

        Assert.True(paused, "no writer was held under the bound while the slice copied");
        Assert.True(aWriteGotIn, "a writer under the bound was held until the slice ended");
        await AssertEveryPatternedKeyAsync(store, 20_000);
    }

    /// <summary>
    /// A pause that slows the writers and ends late (its timer fired late, as timers do on busy cores) is taken off the
    /// pauses after it, so the writers keep the share of the time the policy gives them; the log is still looked at every
    /// interval. (Not taken off, pauses held the writers 14% longer than their share in a load test.)
    /// </summary>
    [Fact]
    public async Task APauseOfTheWritersThatEndsLate_IsTakenOffThePausesAfterIt()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await WritePatternedKeysAsync(store, 20_000);
        await WritePatternedKeysAsync(store, 20_000);

        // A fifth of the way from where compaction hurries to the bound: the writers' share is a fifth of each interval,
        // 2 ms (a pause's timer counts whole milliseconds, as Task.Delay does). Nothing writes, so the log stays there
        // while the first slice waits.
        long logBytes = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
        CompactionThresholdPolicy policy = AfterAPassThatGaveRoomBack((long)(logBytes / 1.1503125));
        Assert.InRange(policy.WriterHoldShare(logBytes), 0.2, 0.205);
        TimeSpan share = TimeSpan.FromMilliseconds(2);
        var clock = new ManualTimeProvider();
        var sliceCopying = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var letTheSliceEnd = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        int slices = 0;
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            policy,
            new RecordingLogger(),
            async (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                if (Interlocked.Increment(ref slices) == 1)
                {
                    sliceCopying.SetResult();
                    await letTheSliceEnd.Task;
                }

                return await store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
            },
            clock: clock);

        Task<CompactionResult> compaction = compactor.CompactNowAsync();
        try
        {
            await sliceCopying.Task.WaitAsync(TimeSpan.FromSeconds(30));

            // The watch looks after an interval and pauses the writers, and the pause's timer fires late: it holds them for
            // three times their share.
            Assert.Equal(CompactionPass.BackPressureWatchInterval, await NextTimerDueInAsync(clock));
            Assert.Equal(1, clock.Advance(CompactionPass.BackPressureWatchInterval));
            Assert.Equal(share, await NextTimerDueInAsync(clock));
            Assert.True(store.Writes.IsClosed, "the writers were not paused");
            Assert.Equal(1, clock.Advance(share * 3));

            // The two looks that follow give the writers back the two shares the late pause took; the one after pauses again.
            var looks = new List<(bool Paused, TimeSpan NextDueIn)>();
            for (int look = 0; look < 3; look++)
            {
                Assert.Equal(1, clock.Advance(await NextTimerDueInAsync(clock)));
                TimeSpan nextDueIn = await NextTimerDueInAsync(clock);
                looks.Add((store.Writes.IsClosed, nextDueIn));
            }

            Assert.Equal(new[] { (false, CompactionPass.BackPressureWatchInterval), (false, CompactionPass.BackPressureWatchInterval), (true, share) }, looks);
            Assert.Equal(share * 3, compactor.Statistics.BackPressure);
        }
        finally
        {
            // Let go whatever failed above: the compactor's disposal waits for the pass.
            letTheSliceEnd.TrySetResult();
        }

        await compaction.WaitAsync(TimeSpan.FromSeconds(60));
        Assert.False(store.Writes.IsClosed, "the writers were left paused after the pass");
        await AssertEveryPatternedKeyAsync(store, 20_000);
    }

    /// <summary>How long from now the next timer of <paramref name="clock"/> falls due, once one is scheduled (a watch sets its next one from a continuation).</summary>
    private static async Task<TimeSpan> NextTimerDueInAsync(ManualTimeProvider clock)
    {
        Assert.True(await WaitUntilAsync(() => clock.NextDue is not null, TimeSpan.FromSeconds(10)), "no timer was scheduled");
        return clock.NextDue!.Value - clock.GetUtcNow();
    }

    /// <summary>
    /// A slice copies the faster way, which relies on every writer being out, only when the writers were held out before
    /// it started: a pause that slows them, begun while the slice waited its turn between checkpoints, lets them in again
    /// while it copies.
    /// </summary>
    [Fact]
    public async Task ASliceThatStartsDuringAPauseOfTheWriters_DoesNotCopyAsIfTheyWereHeldOut()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        await WritePatternedKeysAsync(store, 20_000);
        await WritePatternedKeysAsync(store, 20_000);

        // The log three quarters of the way from where compaction hurries to the bound: writers are paused three
        // quarters of the time, and never held for good, as nothing writes.
        long logBytes = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
        CompactionThresholdPolicy policy = AfterAPassThatGaveRoomBack((long)(logBytes / 1.21875));
        Assert.InRange(policy.WriterHoldShare(logBytes), 0.6, 0.9);
        Assert.False(policy.ShouldHoldWriters(logBytes));
        var slicesHeld = new List<bool>();
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            policy,
            new RecordingLogger(),
            (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                slicesHeld.Add(writersHeld);
                return store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
            },
            new BarrierClosedFirstJournal(new NoJournal(store.FasterKV), store.Writes));

        await compactor.CompactNowAsync();

        Assert.True(compactor.Statistics.BackPressure > TimeSpan.Zero, "the writers were never paused, so the test proves nothing");
        Assert.False(slicesHeld[0], "the first slice copied as if the writers were held out");
        await AssertEveryPatternedKeyAsync(store, 20_000);
    }

    /// <summary>
    /// The live estimate after a pass reads the disk, and nothing else holds writers then: writers that push the log over
    /// the bound meanwhile are held until it ends. (Unwatched, an estimate of 300 ms let unpaced writers take the log from
    /// 10 to 76 MB.)
    /// </summary>
    [Fact]
    public async Task BackPressure_EngagesWhileTheLiveEstimateRuns_OnceWritersPushTheLogOverTheBound()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        // Written twice: the pass gives room back, so that writers over the bound are held while the estimate runs.
        await WritePatternedKeysAsync(store, 20_000);
        await WritePatternedKeysAsync(store, 20_000);

        long logAtStart = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
        var policy = new CompactionThresholdPolicy(logAtStart);
        bool closedDuringTheEstimate = false;
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            policy,
            new RecordingLogger(),
            store.CopyLiveRecordsAsync,
            estimate: async _ =>
            {
                Assert.False(store.Writes.IsClosed);

                // Writers push the log past the bound while the estimate is still reading.
                closedDuringTheEstimate = await PushTheLogOverTheBoundAsync(store, policy);
                return await store.LiveBytes.EstimateAsync();
            });

        await compactor.CompactNowAsync();

        Assert.True(closedDuringTheEstimate, "the writers were not held while the estimate ran");
        Assert.False(store.Writes.IsClosed, "the estimate left the writers held");
        await AssertEveryPatternedKeyAsync(store, 20_000);
    }

    /// <summary>Cancelling a compaction stops it at the next slice; what it did stays done and nothing is lost.</summary>
    /// <summary>
    /// A scheduled pass of a log just over its threshold copies with one worker, leaving the cores to the writers; a
    /// compaction asked for now copies with all of them. Both keep every key.
    /// </summary>
    [Fact]
    public async Task APassJustOverTheThreshold_CopiesWithOneWorker_AndACompactionAskedForNow_WithAll()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        const int Keys = 20_000;
        await WritePatternedKeysAsync(store, Keys);
        long logBytes = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
        var workersAsked = new System.Collections.Concurrent.ConcurrentQueue<int>();
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            AfterAPassThatGaveRoomBack(logBytes),
            new RecordingLogger(),
            (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                workersAsked.Enqueue(pace.CopyWorkers);
                return store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
            });

        await compactor.RunScheduledStepAsync();
        Assert.NotEmpty(workersAsked);
        Assert.Equal(1, workersAsked.First());

        await WritePatternedKeysAsync(store, Keys);
        workersAsked.Clear();
        await compactor.CompactNowAsync();
        Assert.NotEmpty(workersAsked);
        Assert.All(workersAsked, workers => Assert.Equal(CompactionPass.MaxCopyWorkers, workers));
        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    [Fact]
    public async Task ACompactionCancelledDuringItsFirstSlice_StopsBeforeTheNext_AndLosesNothing()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        const int Keys = 100_000;
        await WritePatternedKeysAsync(store, Keys);

        Assert.True(store.FasterKV.Log.SafeReadOnlyAddress - store.FasterKV.Log.BeginAddress > 2 * CompactionPass.MinSliceBytes, "the log must span more than two slices");
        using var cancellation = new CancellationTokenSource();
        int slices = 0;
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            new CompactionThresholdPolicy(1L << 40),
            new RecordingLogger(),
            (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                Interlocked.Increment(ref slices);
                cancellation.Cancel();
                return store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
            });

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => compactor.CompactNowAsync(cancellation.Token));

        Assert.Equal(1, slices);
        Assert.False(store.Writes.IsClosed);
        CompactionResult later = await compactor.CompactNowAsync();
        Assert.True(later.Compacted);
        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    /// <summary>
    /// FASTER throws its own <c>FasterException</c> from a copy's upsert or its own compaction, and its lookup compaction
    /// has thrown <c>NullReferenceException</c> under load: a caller gets this library's typed exception instead, the
    /// store stays usable, and a later compaction finishes the job.
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AFasterExceptionDuringACopy_ReachesTheCallerAsCompactionFailed_AndLosesNothing(bool nullReference)
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        const int Keys = 20_000;
        await WritePatternedKeysAsync(store, Keys);
        bool fail = true;
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            new CompactionThresholdPolicy(1L << 40),
            new RecordingLogger(),
            (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) => fail
                ? throw (nullReference ? new NullReferenceException("in TryCopyToTail") : new FASTER.core.FasterException("Entry does not fit on page"))
                : store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress));

        var error = await Assert.ThrowsAsync<CompactionFailedException>(() => compactor.CompactNowAsync());

        Assert.Contains(nullReference ? "in TryCopyToTail" : "Entry does not fit on page", error.Message, StringComparison.Ordinal);
        Assert.Contains("Nothing was lost", error.Message, StringComparison.Ordinal);
        Assert.IsType(nullReference ? typeof(NullReferenceException) : typeof(FASTER.core.FasterException), error.InnerException);
        Assert.False(store.Writes.IsClosed, "the failed pass left the writers held");
        fail = false;
        Assert.True((await compactor.CompactNowAsync()).Compacted);
        await store.UpsertAsync(Key(Keys), PatternedValue(Keys, 100));
        await AssertEveryPatternedKeyAsync(store, Keys + 1);
    }

    /// <summary>
    /// With nothing to recover, a slice's emptied segment files need not wait for the rest of its pass. They once did,
    /// and a long pass beside fast writers left the disk half again over the log (docs/benchmarks.md).
    /// </summary>
    [Fact]
    public async Task WithNothingRecovered_TheSegmentFilesASliceEmptied_AreDeletedBeforeTheNextSliceEnds()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        const int Keys = 100_000;
        await WritePatternedKeysAsync(store, Keys);

        long firstBegin = store.FasterKV.Log.BeginAddress;
        Assert.True(store.FasterKV.Log.SafeReadOnlyAddress - firstBegin > 2 * CompactionPass.MinSliceBytes, "the log must span more than two slices");
        var segmentsLeftBelowTheSlice = new List<int>();
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            new CompactionThresholdPolicy(1L << 40),
            new RecordingLogger(),
            async (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                if (fromAddress > firstBegin)
                {
                    segmentsLeftBelowTheSlice.Add(await SegmentsLeftBelowAsync(store, fromAddress));
                }

                return await store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
            });

        await compactor.CompactNowAsync();

        Assert.True(segmentsLeftBelowTheSlice.Count >= 2, "the pass had fewer than three slices, so the test proves little");
        Assert.All(segmentsLeftBelowTheSlice, left => Assert.Equal(0, left));
        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    /// <summary>
    /// A scheduled pass with time to spare (the log at its threshold, short of where compaction hurries) rests between
    /// its slices, leaving the disk to the foreground, and still keeps every key; a compaction asked for now copies
    /// without resting.
    /// </summary>
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task APassWithTimeToSpare_RestsBetweenItsSlices_ACompactionAskedForNowDoesNot(bool askedForNow)
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        const int Keys = 60_000;

        // Three rounds of the same keys: a third of the log is live, so its estimate leaves the threshold where it is set.
        for (int round = 0; round < 3; round++)
        {
            await WritePatternedKeysAsync(store, Keys);
        }

        long logBytes = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
        Assert.True(store.FasterKV.Log.SafeReadOnlyAddress - store.FasterKV.Log.BeginAddress > 3 * CompactionPass.MinSliceBytes, "the log must span more than three slices");
        var policy = new CompactionThresholdPolicy(minimumThresholdBytes: logBytes * 9 / 10);
        Assert.True(logBytes < policy.HurriedFromBytes, "the log must be short of where compaction hurries");
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(store, policy, new RecordingLogger(), store.CopyLiveRecordsAsync);

        if (askedForNow)
        {
            await compactor.CompactNowAsync();
        }
        else
        {
            await compactor.RunScheduledStepAsync();
        }

        Assert.True(compactor.Statistics.Passes >= 1, "no pass ran");
        if (askedForNow)
        {
            Assert.Equal(TimeSpan.Zero, compactor.Statistics.Rested);
        }
        else
        {
            Assert.True(compactor.Statistics.Rested > TimeSpan.Zero, "the pass did not rest between its slices");
        }

        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    /// <summary>
    /// A durable store lets segment files go only after a checkpoint has recorded the new begin address. A long pass
    /// once checkpointed only at its end, so the disk held every segment it emptied until then; it now releases them
    /// every quarter of the threshold.
    /// </summary>
    [Fact]
    public async Task ADurableStoresLongPass_ReleasesTheSegmentFilesItEmptied_BeforeItEnds()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(DurableStores.Options(temp.Path, DurabilityMode.Checkpoint));
        const int Keys = 160_000;
        await WritePatternedKeysAsync(store, Keys);

        long firstBegin = store.FasterKV.Log.BeginAddress;
        Assert.True(store.FasterKV.Log.SafeReadOnlyAddress - firstBegin > 3 * CompactionPass.MinSliceBytes, "the log must span more than three slices");
        long checkpointsBefore = store.Journal.DurableFlushes!.Value;
        var segmentsLeftBelowEarlierSlices = new List<int>();
        long previousFrom = firstBegin;
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            new CompactionThresholdPolicy(minimumThresholdBytes: 8 << 20),
            new RecordingLogger(),
            async (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                // By the third slice the first one's segments have been released (the threshold's quarter is under a slice).
                if (previousFrom > firstBegin)
                {
                    segmentsLeftBelowEarlierSlices.Add(await SegmentsLeftBelowAsync(store, previousFrom));
                }

                previousFrom = fromAddress;
                return await store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
            },
            store.Journal);

        await compactor.CompactNowAsync();

        Assert.True(segmentsLeftBelowEarlierSlices.Count >= 2, "the pass had fewer than four slices, so the test proves little");
        Assert.All(segmentsLeftBelowEarlierSlices, left => Assert.Equal(0, left));
        Assert.True(store.Journal.DurableFlushes!.Value - checkpointsBefore > 2, "the pass took no checkpoint on the way");
        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    /// <summary>
    /// A durable store's pass asks for a release on the way only once it has emptied whole segment files: a checkpoint
    /// while the begin address is still inside the first segment frees nothing. Counted in log bytes (every quarter of
    /// the threshold), this pass checkpointed after every slice for no file.
    /// </summary>
    [Fact]
    public async Task ADurableStoresPass_ThatEmptiesNoWholeSegment_TakesNoCheckpointOnTheWay()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = DurableStores.Options(temp.Path, DurabilityMode.Checkpoint);
        options.SegmentSizeBits = 26;
        await using var store = StoreFactory.Open(options);
        const int Keys = 160_000;
        await WritePatternedKeysAsync(store, Keys);

        Assert.True(store.FasterKV.Log.SafeReadOnlyAddress - store.FasterKV.Log.BeginAddress > 3 * CompactionPass.MinSliceBytes, "the log must span more than three slices");
        Assert.True(store.FasterKV.Log.TailAddress < 1L << options.SegmentSizeBits, "the log must still be inside its first segment");
        int releases = 0;
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            new CompactionThresholdPolicy(minimumThresholdBytes: 8 << 20),
            new RecordingLogger(),
            store.CopyLiveRecordsAsync,
            new ReleaseObservingJournal(store.Journal, () => releases++),
            segmentSizeBits: options.SegmentSizeBits);

        CompactionResult pass = await compactor.CompactNowAsync();

        Assert.True(pass.Compacted, "no pass ran, so the test proves nothing");
        Assert.Equal(1, releases); // the compactor's own, once the pass has ended
        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    /// <summary>
    /// While a durable store's pass holds the writers (the log is at its bound, and the disk with it), it gives back its
    /// emptied segments each sixteenth of the threshold: released only every eighth, segments waiting for a checkpoint
    /// took Checkpoint mode's files over three times the live data at the 95th percentile; released each one, 4 MB
    /// segments took a fifth of the throughput in checkpoints (docs/benchmarks.md, "Emptied segments released a
    /// sixteenth of the threshold at a time near the bound").
    /// </summary>
    [Fact]
    public async Task ADurableStoresPass_ReleasesEachSixteenthOfTheThreshold_WhileItHoldsTheWriters()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(DurableStores.Options(temp.Path, DurabilityMode.Checkpoint));
        const int Keys = 64_000;
        await WriteKilobyteValuesAsync(store, Keys, round: 0);
        await WriteKilobyteValuesAsync(store, Keys, round: 1);

        // The first round, all superseded, fills the first half of the log, so each of its slices gives back what it
        // covers. The bound sits four slices under the log: the first four slices run with the writers held.
        long logBytes = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
        var policy = new CompactionThresholdPolicy(minimumThresholdBytes: (logBytes - (CompactionPass.MinSliceBytes * 4)) * 4 / 5);

        // Held from its start, so held at its end: the barrier closed now could also be a pause that slows the writers
        // short of the bound, which holds them for a few milliseconds and not for the slice.
        List<long> unreleased = await UnreleasedBeforeEachSliceAfterOneNearTheBoundAsync(store, policy, (logNow, previousSliceHeldTheWriters) => previousSliceHeldTheWriters);

        AssertReleasedEachSixteenthOfTheThreshold(unreleased, policy, atLeast: 3);
        await AssertEveryKilobyteValueOfRoundAsync(store, Keys, round: 1);
    }

    /// <summary>
    /// While the log is where writers are slowed, short of the bound, a durable store's pass also gives back its emptied
    /// segments each sixteenth of the threshold: there the disk is near its bound too. (Writers slowed rather than held,
    /// and segments released only every eighth of the threshold, let the files pass three times the live data in a few
    /// seconds of ten-minute load tests; docs/benchmarks.md, "Writers slowed in proportion".)
    /// </summary>
    [Fact]
    public async Task ADurableStoresPass_ReleasesEachSixteenthOfTheThreshold_WhileTheLogIsWhereWritersAreSlowed()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(DurableStores.Options(temp.Path, DurabilityMode.Checkpoint));
        const int Keys = 64_000;
        await WriteKilobyteValuesAsync(store, Keys, round: 0);
        await WriteKilobyteValuesAsync(store, Keys, round: 1);

        // The bound just over the log, and writers slowed from nine tenths of it: the first round, all superseded, fills
        // the first half of the log, so each of its slices gives back what it covers, and the first slices leave the log
        // where writers are slowed.
        long logBytes = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
        var policy = new CompactionThresholdPolicy(minimumThresholdBytes: (logBytes + 4_096) * 4 / 5);
        Assert.False(policy.ShouldHoldWriters(logBytes), "the log must be under the bound");
        Assert.True(policy.WriterHoldShare(logBytes - (CompactionPass.MinSliceBytes * 2)) > 0, $"a log of {logBytes} bytes is too short: two slices take it under where writers are slowed");

        // Nothing writes, so the log as a slice starts is the log the slice before left.
        List<long> unreleased = await UnreleasedBeforeEachSliceAfterOneNearTheBoundAsync(store, policy, (logNow, previousSliceHeldTheWriters) => policy.WriterHoldShare(logNow) > 0);

        AssertReleasedEachSixteenthOfTheThreshold(unreleased, policy, atLeast: 2);
        await AssertEveryKilobyteValueOfRoundAsync(store, Keys, round: 1);
    }

    /// <summary>
    /// Compacts a Checkpoint-mode store's log now, with a compactor on its barrier and journal, and returns, before each
    /// slice that follows one <paramref name="endedNearTheBound"/> (given the log then, and whether that slice held the
    /// writers from its start), the bytes of the whole segments the pass had emptied and not yet asked the journal to
    /// release.
    /// </summary>
    private static async Task<List<long>> UnreleasedBeforeEachSliceAfterOneNearTheBoundAsync(FasterRecordStore store, CompactionThresholdPolicy policy, Func<long, bool, bool> endedNearTheBound)
    {
        const int SegmentSizeBits = 20;
        long releasedUntil = store.FasterKV.Log.BeginAddress;
        long firstBegin = releasedUntil;
        bool previousHeld = false;
        var unreleased = new List<long>();
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            policy,
            new RecordingLogger(),
            (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                long logNow = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
                if (fromAddress > firstBegin && endedNearTheBound(logNow, previousHeld))
                {
                    unreleased.Add(((fromAddress >> SegmentSizeBits) - (Volatile.Read(ref releasedUntil) >> SegmentSizeBits)) << SegmentSizeBits);
                }

                previousHeld = writersHeld;
                return store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
            },
            new ReleaseObservingJournal(store.Journal, () => Volatile.Write(ref releasedUntil, store.FasterKV.Log.BeginAddress)),
            segmentSizeBits: SegmentSizeBits);

        await compactor.CompactNowAsync();
        return unreleased;
    }

    /// <summary>
    /// Asserts that at least <paramref name="atLeast"/> slices followed one near the bound, that none found a sixteenth of
    /// the threshold or more emptied and not released, and that some found emptied segments waiting (not released each).
    /// </summary>
    private static void AssertReleasedEachSixteenthOfTheThreshold(List<long> unreleased, CompactionThresholdPolicy policy, int atLeast)
    {
        Assert.True(policy.ThresholdBytes / 16 > CompactionPass.MinSliceBytes, $"a threshold of {policy.ThresholdBytes} bytes is too low: a sixteenth of it is not over a slice, so every slice is released");
        Assert.True(unreleased.Count >= atLeast, $"only {unreleased.Count} slices followed one near the bound, so the test proves little");
        Assert.All(unreleased, waiting => Assert.True(waiting < policy.ThresholdBytes / 16, $"{waiting} bytes of emptied segments waited, a sixteenth of the threshold or more"));
        Assert.Contains(unreleased, waiting => waiting > 0);
    }

    /// <summary>
    /// Under the back-pressure bound, a Commit-mode store's pass gives back each segment as soon as a slice has emptied
    /// it; a Checkpoint-mode store's gathers an eighth of the threshold first. Released in eighths, Commit mode's
    /// segments waiting for a checkpoint took its files over three times the live data in single seconds of the load
    /// test, since its passes seldom reach the bound (docs/benchmarks.md).
    /// </summary>
    [Theory]
    [InlineData(DurabilityMode.Commit, true)]
    [InlineData(DurabilityMode.Checkpoint, false)]
    public async Task UnderTheBound_ADurableStoresPass_ReleasesEachEmptiedSegment_OnlyWhereItsJournalAsks(DurabilityMode mode, bool releasedAfterEachSlice)
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(DurableStores.Options(temp.Path, mode));
        const int Keys = 160_000;
        await WritePatternedKeysAsync(store, Keys);

        // The threshold is over twice the log, so the pass never reaches the bound, and an eighth of it is more than a
        // slice: only the journal's rule releases after every slice.
        long logBytes = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
        var policy = new CompactionThresholdPolicy(minimumThresholdBytes: Math.Max(logBytes * 2, CompactionPass.MinSliceBytes * 12));
        Assert.True(store.FasterKV.Log.SafeReadOnlyAddress - store.FasterKV.Log.BeginAddress > 4 * CompactionPass.MinSliceBytes, "the log must span more than four slices");
        var slicesEnded = new List<long>();
        var releasesOnTheWay = new List<long>();
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            policy,
            new RecordingLogger(),
            async (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                long copied = await store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
                slicesEnded.Add(untilAddress);
                return copied;
            },
            new ReleaseObservingJournal(store.Journal, () => releasesOnTheWay.Add(store.FasterKV.Log.BeginAddress)));

        CompactionResult pass = await compactor.CompactNowAsync();

        Assert.True(pass.Compacted, "no pass ran, so the test proves nothing");
        Assert.Equal(TimeSpan.Zero, compactor.Statistics.BackPressure);
        releasesOnTheWay.RemoveAt(releasesOnTheWay.Count - 1); // the compactor's own, once the pass has ended
        if (releasedAfterEachSlice)
        {
            Assert.Equal(slicesEnded.SkipLast(1), releasesOnTheWay);
        }
        else
        {
            Assert.True(releasesOnTheWay.Count < slicesEnded.Count - 1, $"the pass released after {releasesOnTheWay.Count} of its {slicesEnded.Count} slices");
        }

        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    /// <summary>
    /// Writers that take the log over the back-pressure bound while a durable store's pass releases its emptied segments
    /// (a checkpoint) are held, as they are during a slice. Unwatched there, the load test's writers outran the bound by
    /// up to a quarter of the live data, and the files passed three times it (docs/benchmarks.md).
    /// </summary>
    [Fact]
    public async Task WritersThatPassTheBound_WhileAPassReleasesSegments_AreHeld()
    {
        using var temp = new TempDirectory();
        const int Keys = 80_000;
        await using FasterRecordStore store = await OpenCheckpointStoreWithASupersededRoundAsync(temp.Path, Keys);

        // The bound is a quarter over the log as it is, so the pass starts with the writers free; the first release's
        // writes take the log over it.
        var policy = new CompactionThresholdPolicy(minimumThresholdBytes: store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress);
        Task<bool>? pushed = null;
        bool heldDuringTheRelease = false;
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            policy,
            new RecordingLogger(),
            store.CopyLiveRecordsAsync,
            new ReleaseObservingJournal(store.Journal, () =>
            {
                if (pushed is null)
                {
                    // On another task: writes held by the bound wait there, while this release waits to see the hold.
                    pushed = Task.Run(() => PushTheLogOverTheBoundAsync(store, policy));
                    heldDuringTheRelease = pushed.Wait(TimeSpan.FromSeconds(30)) && pushed.Result;
                }
            }));

        await compactor.CompactNowAsync();

        Assert.NotNull(pushed);
        Assert.True(heldDuringTheRelease, "writers over the bound went on while the pass released its segments");
        await pushed.WaitAsync(TimeSpan.FromSeconds(30));
        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    /// <summary>
    /// The checkpoints a durable store's pass takes to release the segment files it emptied hold no writer once a slice
    /// has brought the log under the back-pressure bound. Held until the next slice, writers waited for each of those
    /// checkpoints' whole flush: the longest pauses beside checkpoints in the load test (docs/benchmarks.md).
    /// </summary>
    [Fact]
    public async Task TheCheckpointsOfAPass_HoldNoWriter_OnceASliceBroughtTheLogUnderTheBound()
    {
        using var temp = new TempDirectory();
        const int Keys = 80_000;
        await using FasterRecordStore store = await OpenCheckpointStoreWithASupersededRoundAsync(temp.Path, Keys);

        // The first round of writes, all superseded, fills the first slices: each gives back what it covers. The bound (a
        // quarter over the threshold) sits one and a half slices under the log, so the writers are held through the
        // first slice (a release there finds them held: the log is still over the bound) and the log is back under the
        // bound after the second. Every slice empties four segments, more than an eighth of the threshold, so the pass
        // releases after every slice.
        long logBytes = store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress;
        var policy = new CompactionThresholdPolicy(minimumThresholdBytes: (logBytes - (CompactionPass.MinSliceBytes * 3 / 2)) * 4 / 5);
        Assert.True(policy.ShouldHoldWriters(logBytes - CompactionPass.MinSliceBytes), "the log must still be over the bound after the first slice");
        Assert.True(policy.ThresholdBytes / 8 <= CompactionPass.MinSliceBytes, $"a log of {logBytes} bytes is too long for a release after every slice");
        var writersHeldAtReleasesUnderTheBound = new List<bool>();
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            policy,
            new RecordingLogger(),
            store.CopyLiveRecordsAsync,
            new ReleaseObservingJournal(store.Journal, () =>
            {
                // Under where writers are slowed, with none writing: a pause of the writers begun before the slice moved
                // the begin address ends within milliseconds, and the barrier closed for longer is the pass holding them.
                if (policy.WriterHoldShare(store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress) == 0)
                {
                    writersHeldAtReleasesUnderTheBound.Add(StaysClosedFor(store.Writes, TimeSpan.FromMilliseconds(100)));
                }
            }));

        await compactor.CompactNowAsync();

        Assert.True(compactor.Statistics.BackPressure > TimeSpan.Zero, "no writer was held, so the test proves nothing");
        Assert.True(writersHeldAtReleasesUnderTheBound.Count >= 3, $"the pass checkpointed {writersHeldAtReleasesUnderTheBound.Count} times under the bound; it must do so on the way too");
        Assert.All(writersHeldAtReleasesUnderTheBound, Assert.False);
        await AssertEveryPatternedKeyAsync(store, Keys);
    }

    /// <summary>The low-memory store's options with scheduled compaction from 64 KB of log: a few thousand small records pass it.</summary>
    private static MixedStorageKVStoreOptions LowMemoryWithA64KilobyteThreshold(string directory)
    {
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(directory);
        options.InitialLogCompactionThresholdBytes = 64 << 10;
        return options;
    }

    /// <summary>
    /// A compactor of a low-memory store beside its own, sharing the store's write barrier (so its back-pressure holds the
    /// store's writers), with a copy of the test's, and the store's journal or, by default, none.
    /// </summary>
    private static LogCompactor CompactorOnTheStoresBarrier(FasterRecordStore store, CompactionThresholdPolicy policy, RecordingLogger logger, CopyLiveRecords copy, IWriteJournal? journal = null, EstimateLiveBytes? estimate = null, int segmentSizeBits = 20, TimeProvider? clock = null) =>
        new(
            store.FasterKV,
            copy,
            estimate ?? store.LiveBytes.EstimateAsync,
            journal ?? new NoJournal(store.FasterKV),
            store.Writes,
            new StoreFault(),
            store.Layout,
            pageSizeBits: 12,
            segmentSizeBits,
            policy,
            LogDiskBudget.None,
            clock ?? TimeProvider.System,
            logger);

    /// <summary>
    /// A compactor on the store's own barrier (<see cref="CompactorOnTheStoresBarrier"/>) whose first slice runs
    /// <paramref name="beforeItCopies"/>, given the slice's pace and whether it holds the writers, before it copies.
    /// </summary>
    private static LogCompactor CompactorWhoseFirstSliceFirstRuns(FasterRecordStore store, CompactionThresholdPolicy policy, Func<SlicePace, bool, Task> beforeItCopies)
    {
        int slices = 0;
        return CompactorOnTheStoresBarrier(
            store,
            policy,
            new RecordingLogger(),
            async (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                if (Interlocked.Increment(ref slices) == 1)
                {
                    await beforeItCopies(pace, writersHeld);
                }

                return await store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
            });
    }

    /// <summary>Whether <paramref name="barrier"/> holds writers out for all of <paramref name="time"/>, watched from this thread.</summary>
    private static bool StaysClosedFor(WriteBarrier barrier, TimeSpan time)
    {
        var watched = System.Diagnostics.Stopwatch.StartNew();
        while (barrier.IsClosed)
        {
            if (watched.Elapsed >= time)
            {
                return true;
            }

            Thread.Sleep(1);
        }

        return false;
    }

    /// <summary>Writes until the log is over the back-pressure bound; returns whether the writers were then held within ten seconds.</summary>
    private static async Task<bool> PushTheLogOverTheBoundAsync(FasterRecordStore store, CompactionThresholdPolicy policy)
    {
        await WriteUntilTheLogHoldsAsync(store, policy.BackPressureBytes);
        return await WaitUntilAsync(() => store.Writes.IsClosed, TimeSpan.FromSeconds(10));
    }

    /// <summary>Writes records of 100 bytes until the log holds <paramref name="logBytes"/> or more.</summary>
    private static async Task WriteUntilTheLogHoldsAsync(FasterRecordStore store, long logBytes)
    {
        for (int key = 0; store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress < logBytes; key++)
        {
            await store.UpsertAsync(Key(key), PatternedValue(key, 100)).AsTask().WaitAsync(TimeSpan.FromSeconds(30));
        }
    }

    private const int CollidingKeys = 20_000;

    /// <summary>Two rounds over keys that, with 64 hash buckets, share their chains with many others.</summary>
    private static async Task WriteEveryCollidingKeyTwiceAsync(FasterRecordStore store)
    {
        for (int round = 0; round < 2; round++)
        {
            for (int key = 0; key < CollidingKeys; key++)
            {
                await store.UpsertAsync(Key(key), PatternedValue(key + round, 40));
            }
        }
    }

    private static async Task AssertTheSecondRoundOfEveryCollidingKeyAsync(FasterRecordStore store)
    {
        Assert.True(store.FasterKV.Log.BeginAddress > CollidingKeys * PinnedRecord.SizeInLog(sizeof(int), 40), "the compaction must pass the first round's records");
        for (int key = 0; key < CollidingKeys; key++)
        {
            Assert.Equal(PatternedValue(key + 1, 40), await ReadBytesAsync(store, key));
        }
    }

    private static async Task WritePatternedKeysAsync(FasterRecordStore store, int keys)
    {
        for (int key = 0; key < keys; key++)
        {
            await store.UpsertAsync(Key(key), PatternedValue(key, 100));
        }
    }

    /// <summary>A Checkpoint-mode store with <paramref name="keys"/> patterned keys written twice: the first round, all superseded, fills the first half of its log.</summary>
    private static async Task<FasterRecordStore> OpenCheckpointStoreWithASupersededRoundAsync(string directory, int keys)
    {
        FasterRecordStore store = StoreFactory.Open(DurableStores.Options(directory, DurabilityMode.Checkpoint));
        await WritePatternedKeysAsync(store, keys);
        await WritePatternedKeysAsync(store, keys);
        return store;
    }

    private static async Task WriteKilobyteValuesAsync(FasterRecordStore store, int keys, int round)
    {
        for (int key = 0; key < keys; key++)
        {
            await store.UpsertAsync(Key(key), KilobyteValue(key, round));
        }
    }

    private static byte[] KilobyteValue(int key, int round) => PatternedValue(key + (round * 1_000_003), 1024);

    /// <summary>Reads every key <see cref="WriteKilobyteValuesAsync"/> wrote, expecting its value of <paramref name="round"/>.</summary>
    private static async Task AssertEveryKilobyteValueOfRoundAsync(FasterRecordStore store, int keys, int round)
    {
        for (int key = 0; key < keys; key++)
        {
            Assert.Equal(KilobyteValue(key, round), await ReadBytesAsync(store, key));
        }
    }

    private static async Task AssertEveryPatternedKeyAsync(FasterRecordStore store, int keys)
    {
        for (int key = 0; key < keys; key++)
        {
            Assert.Equal(PatternedValue(key, 100), await ReadBytesAsync(store, key));
        }
    }

    /// <summary>
    /// How many segment files (of a megabyte: the low-memory stores') are still wholly below <paramref name="address"/>,
    /// once FASTER's background deletion has had up to ten seconds to remove them.
    /// </summary>
    private static async Task<int> SegmentsLeftBelowAsync(FasterRecordStore store, long address)
    {
        long firstKept = address >> 20;
        await WaitUntilAsync(() => store.Layout!.Segments().All(segment => segment.Number >= firstKept), TimeSpan.FromSeconds(10));
        return store.Layout!.Segments().Count(segment => segment.Number < firstKept);
    }

    private static async Task<bool> WaitUntilAsync(Func<bool> condition, TimeSpan limit)
    {
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (!condition())
        {
            if (waited.Elapsed > limit)
            {
                return false;
            }

            await Task.Delay(5);
        }

        return true;
    }

    /// <summary>
    /// A policy that has seen a pass give room back (half of its part live), so that back-pressure may hold writers from
    /// a pass's first slice; its threshold stays <paramref name="minimumThresholdBytes"/>.
    /// </summary>
    private static CompactionThresholdPolicy AfterAPassThatGaveRoomBack(long minimumThresholdBytes)
    {
        var policy = new CompactionThresholdPolicy(minimumThresholdBytes);
        policy.RecordPass(liveBytesEstimate: 0, logBytesLeft: 0, copiedBytes: 1, compactedBytes: 2);
        return policy;
    }

    /// <summary>
    /// Compacts 100,000 records, written once or twice (over three slices or more, through the store's own barrier,
    /// copier and journal) with a write of a key being compacted starting during the first slice; returns, per slice,
    /// where it started, whether it copied with the writers held and whether that write had completed before it copied,
    /// and checks every value afterwards.
    /// </summary>
    private static async Task<PassSeen> RunAPassWithAWriteStartingAsync(
        Func<long, CompactionThresholdPolicy> policyForLogBytes, bool awaitTheWriteInTheFirstSlice, bool writeEveryKeyTwice, Func<FasterRecordStore, Task<long>>? estimateWith = null)
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        const int Keys = 100_000;
        const int WrittenKey = 7;

        // Lengths that put records across any slice's end.
        static byte[] ValueOf(int key) => PatternedValue(key, 60 + (key % 90));

        long firstRoundEnd = 0;
        for (int round = 0; round < (writeEveryKeyTwice ? 2 : 1); round++)
        {
            for (int key = 0; key < Keys; key++)
            {
                await store.UpsertAsync(Key(key), ValueOf(key));
            }

            firstRoundEnd = round == 0 ? store.FasterKV.Log.TailAddress : firstRoundEnd;
        }

        Assert.True(store.FasterKV.Log.SafeReadOnlyAddress - store.FasterKV.Log.BeginAddress > 2 * CompactionPass.MinSliceBytes, "the log must span more than two slices");
        var logger = new RecordingLogger();
        var slices = new List<SliceSeen>();
        Task? write = null;
        byte[] newValue = PatternedValue(-1, 100);
        await using LogCompactor compactor = CompactorOnTheStoresBarrier(
            store,
            policyForLogBytes(store.FasterKV.Log.TailAddress - store.FasterKV.Log.BeginAddress),
            logger,
            async (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                if (write is null)
                {
                    write = store.UpsertAsync(Key(WrittenKey), newValue).AsTask();
                    if (awaitTheWriteInTheFirstSlice)
                    {
                        // Would time out if the pass held writers while it copied.
                        await write.WaitAsync(TimeSpan.FromSeconds(30));
                    }
                }

                slices.Add(new SliceSeen(fromAddress, writersHeld, write.IsCompletedSuccessfully));
                return await store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
            },
            estimate: estimateWith is null ? null : _ => estimateWith(store));

        CompactionResult result = await compactor.CompactNowAsync();

        Assert.True(result.Compacted);
        await write!;
        for (int key = 0; key < Keys; key++)
        {
            Assert.Equal(key == WrittenKey ? newValue : ValueOf(key), await ReadBytesAsync(store, key));
        }

        return new PassSeen(slices, firstRoundEnd, compactor.Statistics, logger);
    }

    /// <summary>One slice of a pass, as its copier saw it.</summary>
    private sealed record SliceSeen(long FromAddress, bool WritersHeld, bool WriteDone);

    /// <summary>What <see cref="RunAPassWithAWriteStartingAsync"/> saw: the slices, where the first round of writes ended, the statistics and the log.</summary>
    private sealed record PassSeen(IReadOnlyList<SliceSeen> Slices, long FirstRoundEnd, CompactionStatistics Statistics, RecordingLogger Logger)
    {
        public override string ToString() =>
            $"first round ends at {FirstRoundEnd}; slices (from, held, write done): " + string.Join("; ", Slices.Select(slice => $"{slice.FromAddress} {slice.WritersHeld} {slice.WriteDone}"));
    }

    [Fact]
    public async Task AFailedScheduledCompaction_IsLoggedAsAWarning_LosesNothing_AndTheScheduleGoesOn()
    {
        using var temp = new TempDirectory();
        var logger = new RecordingLogger();
        var clock = new ManualTimeProvider();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path), logger, clock);
        for (int key = 0; key < 2_000; key++)
        {
            await store.UpsertAsync(Key(key), Encoding.UTF8.GetBytes($"value {key}"));
        }

        // The first compaction fails before it copies anything; later ones copy.
        int compactions = 0;
        await using var compactor = new LogCompactor(
            store.FasterKV,
            (fromAddress, untilAddress, writersHeld, pace, passUntilAddress) =>
            {
                if (Interlocked.Increment(ref compactions) == 1)
                {
                    throw new IOException("injected compaction failure");
                }

                return store.CopyLiveRecordsAsync(fromAddress, untilAddress, writersHeld, pace, passUntilAddress);
            },
            store.LiveBytes.EstimateAsync,
            new NoJournal(store.FasterKV),
            new WriteBarrier(),
            new StoreFault(),
            store.Layout,
            pageSizeBits: 12,
            segmentSizeBits: 20,
            AfterAPassThatGaveRoomBack(minimumThresholdBytes: 1),
            LogDiskBudget.None,
            clock,
            logger);
        compactor.Start(TimeSpan.FromSeconds(1));

        clock.Advance(TimeSpan.FromSeconds(1));
        await WaitForEventAsync(logger, ids => ids.Contains(CompactionFailedEvent));
        clock.Advance(TimeSpan.FromSeconds(1));
        await WaitForEventAsync(logger, ids => ids.Contains(CompactedEvent));

        var failed = logger.Events.Single(e => e.Id.Id == CompactionFailedEvent);
        Assert.Equal(Microsoft.Extensions.Logging.LogLevel.Warning, failed.Level);
        // Whatever a pass throws reaches the log as the library's own exception, the engine's inside it.
        Assert.IsType<CompactionFailedException>(failed.Exception);
        Assert.Equal("injected compaction failure", failed.Exception.InnerException?.Message);
        Assert.Equal(new[] { CompactionFailedEvent, CompactedEvent }, logger.EventIds.Where(id => id is CompactionFailedEvent or CompactedEvent).Take(2));
        for (int key = 0; key < 2_000; key++)
        {
            Assert.Equal($"value {key}", Encoding.UTF8.GetString((await ReadBytesAsync(store, key))!));
        }
    }

    [Fact]
    public async Task DefaultThreshold_IsTwiceTheMemorySize()
    {
        using var temp = new TempDirectory();
        await using var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));

        Assert.Equal(2 * (1L << 13), store.Compactor.ThresholdBytes);
    }

    [Fact]
    public async Task Timer_RunsAScheduledStepEachIntervalOfTheInjectedClock()
    {
        using var temp = new TempDirectory();
        var options = StoreFactory.LowMemory(temp.Path);
        options.TimeBetweenLogCompactionsMS = 60_000;

        // Far above the log: the writes never wake the compactor, so only the timer runs its steps (each one a skip).
        options.InitialLogCompactionThresholdBytes = 1L << 40;
        var logger = new RecordingLogger();
        var clock = new ManualTimeProvider();
        await using var store = StoreFactory.Open(options, logger, clock);
        DateTimeOffset opened = clock.GetUtcNow();
        for (int key = 0; key < 2_000; key++)
        {
            await store.UpsertAsync(Key(key), new byte[100]);
        }

        // Writes that waited for a flush started the epoch nudger's loop, which ticks on the same clock. With nothing
        // pending it ends at its next tick; then the compactor's timer is the only one, so the clock's count of fired
        // timers counts the compactor's ticks alone.
        await Eventually.TrueAsync(
            () =>
            {
                clock.Advance(EpochNudger.Interval);
                return clock.TimerCount == 1;
            },
            () => $"expected only the compactor's timer on the clock, found {clock.TimerCount} timers");

        // A timer fires inside Advance or not at all, so this shows without waiting that no step started early.
        Assert.Equal(0, clock.Advance(opened + TimeSpan.FromSeconds(59) - clock.GetUtcNow()));
        Assert.DoesNotContain(SkippedEvent, logger.EventIds);

        Assert.Equal(1, clock.Advance(TimeSpan.FromSeconds(1)));
        await WaitForEventAsync(logger, ids => ids.Count(id => id == SkippedEvent) == 1);

        Assert.Equal(1, clock.Advance(TimeSpan.FromSeconds(60)));
        await WaitForEventAsync(logger, ids => ids.Count(id => id == SkippedEvent) == 2);
        Assert.DoesNotContain(CompactedEvent, logger.EventIds);
    }

    /// <summary>Writers faster than the timer: a write that finds the log at the threshold starts a step at once.</summary>
    [Fact]
    public async Task AWriteThatFindsTheLogAtTheThreshold_StartsAStep_WithoutWaitingForTheTimer()
    {
        using var temp = new TempDirectory();
        var options = StoreFactory.LowMemory(temp.Path);
        options.TimeBetweenLogCompactionsMS = 3_600_000;
        options.InitialLogCompactionThresholdBytes = 64 << 10;
        var logger = new RecordingLogger();
        var clock = new ManualTimeProvider();
        await using var store = StoreFactory.Open(options, logger, clock);

        // Three rounds of 120 KB: past the threshold, and past twice the live data, with the clock never moved.
        for (int round = 0; round < 3; round++)
        {
            for (int key = 0; key < 1_000; key++)
            {
                await store.UpsertAsync(Key(key), new byte[100]);
            }
        }

        await WaitForEventAsync(logger, ids => ids.Contains(CompactedEvent));
        Assert.True(store.Compactor.Statistics.Passes >= 1);
        for (int key = 0; key < 1_000; key++)
        {
            Assert.NotNull(await ReadBytesAsync(store, key));
        }
    }

    [Fact]
    public async Task Dispose_WaitsForACompactionInProgress()
    {
        using var temp = new TempDirectory();
        var store = StoreFactory.Open(StoreFactory.LowMemory(temp.Path));
        for (int key = 0; key < 20_000; key++)
        {
            await store.UpsertAsync(Key(key), new byte[64]);
        }

        Task<CompactionResult> compaction = store.CompactAsync();
        await store.DisposeAsync().AsTask().WaitAsync(TimeSpan.FromMinutes(2));

        Assert.True(compaction.IsCompletedSuccessfully, $"compaction was {compaction.Status} when disposal finished");
        Assert.True((await compaction).Compacted);
        await Assert.ThrowsAsync<ObjectDisposedException>(() => store.CompactAsync());
    }
}
