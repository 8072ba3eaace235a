using System;
using System.IO;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Storage;

public class TruncationSafeDeviceTests
{
    [Fact]
    public async Task DisposingRightAfterACompaction_NeverHangsOnTheBackgroundTruncation()
    {
        // Each cycle makes FASTER start a background truncation and then closes the store at once: the
        // overlap that used to leave ManagedLocalStorageDevice.Dispose waiting forever.
        using var temp = new TempDirectory();
        byte[] value = new byte[256];
        for (int cycle = 0; cycle < 150; cycle++)
        {
            var options = StoreFactory.LowMemory(Path.Combine(temp.Path, cycle.ToString(System.Globalization.CultureInfo.InvariantCulture)));
            options.SegmentSizeBits = 14; // 16 KB segments: a compaction empties several
            var store = StoreFactory.Open(options);
            for (int key = 0; key < 400; key++)
            {
                await store.UpsertAsync(BitConverter.GetBytes(key % 50), value);
            }

            await store.CompactAsync();

            // On the thread pool, so that a disposal stuck inside the device fails this test instead of hanging the run.
            await Task.Run(async () => await store.DisposeAsync()).WaitAsync(TimeSpan.FromMinutes(1));
        }
    }

    [Fact]
    public void TruncationsAfterDispose_AreDropped_AndAsyncOnesStillCallBack()
    {
        using var temp = new TempDirectory();
        var device = new TruncationSafeDevice(Devices.CreateLogDevice(Path.Combine(temp.Path, "d.log"), deleteOnClose: true));
        device.Initialize(1L << 20);

        device.Dispose();
        device.Dispose();
        device.TruncateUntilAddress(1L << 22);
        device.RemoveSegment(0);
        bool calledBack = false;
        device.RemoveSegmentAsync(0, _ => calledBack = true, null!);

        Assert.True(calledBack);
    }
}
