using System;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

public class SegmentRecyclingDeviceTests
{
    private const long SegmentSize = 1L << 20;

    [Fact]
    public void ASegmentTruncationEmptied_IsTheNextNewSegmentsFile_AndReadsBackWhatIsWrittenThere()
    {
        using var files = new DeviceOverFiles();
        (LogFileLayout layout, SegmentRecyclingDevice device) = (files.Layout, files.Device);
        byte[] first = DeviceIo.Pattern(8192, seed: 1);
        DeviceIo.Write(device, first, 0);
        DeviceIo.Write(device, DeviceIo.Pattern(4096, seed: 2), SegmentSize);

        device.TruncateUntilAddress(SegmentSize);

        Assert.False(File.Exists(layout.SegmentPath(0)));
        Assert.Single(layout.SpareSegments());
        Assert.Equal(SegmentSize, device.SpareBytes);

        byte[] third = DeviceIo.Pattern(4096, seed: 3);
        DeviceIo.Write(device, third, 2 * SegmentSize);

        Assert.Empty(layout.SpareSegments());
        Assert.Equal(0, device.SpareBytes);
        Assert.Equal(1, device.SegmentsReused);
        Assert.Equal([1, 2], layout.Segments().Select(segment => segment.Number));
        using var buffer = new AlignedBuffer(4096);
        Assert.Equal(0u, DeviceIo.ReadAndWait(device, 2 * SegmentSize, buffer));
        Assert.Equal(third, buffer.ToArray());

        // Past what was written to it, the file still holds segment 0's bytes: it is segment 0's file.
        Assert.Equal(0u, DeviceIo.ReadAndWait(device, (2 * SegmentSize) + 4096, buffer));
        Assert.Equal(first[4096..], buffer.ToArray());
    }

    [Fact]
    public void ASpareNotTakenWithinItsLifetime_IsDeleted()
    {
        using var files = new DeviceOverFiles();
        (LogFileLayout layout, SegmentRecyclingDevice device, ManualTimeProvider time) = (files.Layout, files.Device, files.Time);
        DeviceIo.Write(device, DeviceIo.Pattern(4096, seed: 1), 0);
        DeviceIo.Write(device, DeviceIo.Pattern(4096, seed: 2), SegmentSize);
        device.TruncateUntilSegment(1);
        Assert.Single(layout.SpareSegments());

        time.Advance(SegmentRecyclingDevice.SpareLifetime - TimeSpan.FromSeconds(1));
        Assert.Single(layout.SpareSegments());

        time.Advance(SegmentRecyclingDevice.SpareLifetime);
        Assert.Empty(layout.SpareSegments());
        Assert.Equal(0, device.SpareBytes);

        // A new segment then gets a file of its own.
        DeviceIo.Write(device, DeviceIo.Pattern(4096, seed: 3), 2 * SegmentSize);
        Assert.Equal(0, device.SegmentsReused);
        Assert.True(File.Exists(layout.SegmentPath(2)));
    }

    [Theory]
    [InlineData(-5 * SegmentSize, 1)]
    [InlineData(0, 1)]
    [InlineData(2 * SegmentSize, 2)]
    [InlineData(10 * SegmentSize, 4)]
    public void SparesKept_AreAsManyAsTheLogHasRoomFor_ButAtLeastOne(long roomBytes, int kept)
    {
        using var files = new DeviceOverFiles();
        (LogFileLayout layout, SegmentRecyclingDevice device) = (files.Layout, files.Device);
        device.KeepSparesWithin(() => roomBytes);
        for (int segment = 0; segment < 5; segment++)
        {
            DeviceIo.Write(device, DeviceIo.Pattern(4096, seed: segment), segment * SegmentSize);
        }

        device.TruncateUntilSegment(4);

        Assert.Equal(kept, layout.SpareSegments().Count);
        Assert.Equal(kept * SegmentSize, device.SpareBytes);
        Assert.Equal([4], layout.Segments().Select(segment => segment.Number));
    }

    [Fact]
    public void SparesAreDeletedOnDispose_AndThoseACrashLeftWhenTheNextDeviceIsMade()
    {
        using var files = new DeviceOverFiles();
        LogFileLayout layout = files.Layout;
        DeviceIo.Write(files.Device, DeviceIo.Pattern(4096, seed: 1), 0);
        DeviceIo.Write(files.Device, DeviceIo.Pattern(4096, seed: 2), SegmentSize);
        files.Device.TruncateUntilSegment(1);
        Assert.Single(layout.SpareSegments());

        files.Device.Dispose();
        Assert.Empty(layout.SpareSegments());

        File.WriteAllBytes(layout.SpareSegmentPath(7), new byte[512]);
        files.OpenDeviceAgain();
        Assert.Empty(layout.SpareSegments());
    }

    [Fact]
    public void ASegmentRemovedAndWrittenAgain_TakesASpare_AsARecoveredLogsTrimmedTailIs()
    {
        using var files = new DeviceOverFiles();
        (LogFileLayout layout, SegmentRecyclingDevice device) = (files.Layout, files.Device);
        DeviceIo.Write(device, DeviceIo.Pattern(4096, seed: 1), 0);
        DeviceIo.Write(device, DeviceIo.Pattern(4096, seed: 2), SegmentSize);

        device.RemoveSegment(1);
        Assert.False(File.Exists(layout.SegmentPath(1)));
        byte[] again = DeviceIo.Pattern(4096, seed: 3);
        DeviceIo.Write(device, again, SegmentSize);

        Assert.Equal(1, device.SegmentsReused);
        using var buffer = new AlignedBuffer(4096);
        Assert.Equal(0u, DeviceIo.ReadAndWait(device, SegmentSize, buffer));
        Assert.Equal(again, buffer.ToArray());
    }

    [Fact]
    public async Task AStoreWhoseLogRunsOnInReusedFiles_ReadsEveryValueBack_AndCountsItsSparesAsDiskUse()
    {
        // 4 KB pages in 8 KB of memory and 64 KB segments: each round of overwrites and its compaction give segments
        // back while the tail runs on into reused files, and the reads go to the disk, past bytes of the files' old
        // segments.
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(temp.Path);
        options.SegmentSizeBits = 16;
        FasterRecordStore store = StoreFactory.Open(options);
        await using (store)
        {
            // Enough live data that the log grows past a few segments between passes: that many spares are kept.
            const int keys = 1_000;
            for (int round = 0; round < 12; round++)
            {
                for (int key = 0; key < keys; key++)
                {
                    await store.UpsertAsync(BitConverter.GetBytes(key), Value(key, round));
                }

                await store.CompactAsync();
            }

            Assert.True(store.Spares!.SegmentsReused > 0, "new segments were given emptied ones' files");
            for (int key = 0; key < keys; key++)
            {
                (bool found, PooledBuffer value) = await store.ReadAsync(BitConverter.GetBytes(key));
                Assert.True(found);
                Assert.Equal(Value(key, 11), value.Span.ToArray());
                value.Return();
            }

            // The spares kept are counted: the log's span (its segments from begin to tail) plus the spares' files.
            StoreStatus status = store.Status();
            long span = store.Spares.SegmentSize * (((store.FasterKV.Log.TailAddress - 1) / store.Spares.SegmentSize) - (store.FasterKV.Log.BeginAddress / store.Spares.SegmentSize) + 1);
            Assert.Equal(span + store.Spares.SpareBytes, status.DiskBytes);
            Assert.Equal(store.Spares.SpareBytes, new LogFileLayout(temp.Path, "store").SpareSegments().Sum(spare => spare.Length));
        }
    }

    private static byte[] Value(int key, int round) => System.Text.Encoding.UTF8.GetBytes($"{key}:{round}:" + new string((char)('a' + (key % 26)), 200));

    /// <summary>A device over FASTER's file device in a temporary directory, with its epoch and a manual clock.</summary>
    private sealed class DeviceOverFiles : IDisposable
    {
        private readonly TempDirectory _temp = new();

        // FASTER's device runs its truncations under an epoch.
        private readonly LightEpoch _epoch = new();

        public DeviceOverFiles()
        {
            Layout = new LogFileLayout(_temp.Path, "t");
            Device = NewDevice();
        }

        public LogFileLayout Layout { get; }

        public ManualTimeProvider Time { get; } = new();

        public SegmentRecyclingDevice Device { get; private set; }

        /// <summary>Makes a new device over the same files; the test has disposed the previous one.</summary>
        public void OpenDeviceAgain() => Device = NewDevice();

        public void Dispose()
        {
            Device.Dispose();
            _epoch.Dispose();
            _temp.Dispose();
        }

        private SegmentRecyclingDevice NewDevice()
        {
            var device = new SegmentRecyclingDevice(Devices.CreateLogDevice(Layout.LogBasePath, preallocateFile: true, deleteOnClose: true), Layout, Time);
            device.Initialize(SegmentSize, _epoch);
            return device;
        }
    }
}
