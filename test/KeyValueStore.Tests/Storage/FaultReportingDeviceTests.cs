using System;
using System.IO;
using System.Threading;
using FASTER.core;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;
using static KeyValueStore.Tests.Support.DeviceIo;

namespace KeyValueStore.Tests.Storage;

/// <summary>
/// The device that reports a failed write or read to the store's fault (<see cref="FaultReportingDevice"/>): every read
/// completes to its own caller with its own context, and a failed one reaches the fault with its buffer zeroed.
/// </summary>
public class FaultReportingDeviceTests
{
    private const int SegmentSizeBits = 20;

    /// <summary>
    /// FASTER reads a record longer than its first read again from inside that read's completion. The watches of reads
    /// are reused (a completed one becomes its thread's spare before the caller's completion runs), so the second read
    /// takes the first one's watch: each must still complete with its own context and bytes, the first too.
    /// </summary>
    [Fact]
    public void AReadIssuedFromInsideAReadsCompletion_AndTheReadsAfterIt_EachCompleteWithTheirOwnContextAndBytes()
    {
        using var temp = new TempDirectory();
        var fault = new StoreFault();
        using var device = Open(temp.Path, fault);
        byte[] written = Pattern(8192, seed: 11);
        Write(device, written, address: 0);

        using var outer = new AlignedBuffer(4096);
        using var inner = new AlignedBuffer(4096);
        object outerContext = new(), innerContext = new();
        using var done = new CountdownEvent(2);
        object? outerSeen = null, innerSeen = null;
        device.ReadAsync(
            0,
            outer.Pointer,
            4096,
            (error, _, context) =>
            {
                device.ReadAsync(4096, inner.Pointer, 4096, (_, _, nested) => { innerSeen = nested; done.Signal(); }, innerContext);
                outerSeen = context;
                done.Signal();
            },
            outerContext);

        Assert.True(done.Wait(TimeSpan.FromSeconds(30)), "both reads completed");
        Assert.Same(outerContext, outerSeen);
        Assert.Same(innerContext, innerSeen);
        Assert.Equal(written[..4096], outer.ToArray());
        Assert.Equal(written[4096..], inner.ToArray());

        // The reads after them complete as their own too.
        for (int i = 0; i < 20; i++)
        {
            using var buffer = new AlignedBuffer(4096);
            object context = new();
            object? seen = null;
            Assert.Equal(0u, ReadAndWait(device, 4096 * (i % 2), buffer, (_, _, c) => seen = c, context));
            Assert.Same(context, seen);
            Assert.Equal(written.AsSpan(4096 * (i % 2), 4096).ToArray(), buffer.ToArray());
        }

        Assert.False(fault.IsFaulted);
    }

    /// <summary>A failed read reaches the store's fault, and FASTER sees zeros, not what the buffer held; the reads after it are not taken for failed ones.</summary>
    [Fact]
    public void AFailedRead_ReportsTheFault_AndZeroesItsBuffer_AndTheNextReadIsItsOwn()
    {
        using var temp = new TempDirectory();
        var fault = new StoreFault();
        var failing = new FaultInjectingDevice(Devices.CreateLogDevice(Path.Combine(temp.Path, "segments.log"), preallocateFile: false, deleteOnClose: true));
        using var device = new FaultReportingDevice(failing, fault, "segment files");
        device.Initialize(1L << SegmentSizeBits);
        byte[] written = Pattern(4096, seed: 5);
        Write(device, written, address: 0);

        using var buffer = new AlignedBuffer(4096);
        System.Runtime.InteropServices.Marshal.Copy(Pattern(4096, seed: 9), 0, buffer.Pointer, 4096);
        failing.FailReads(FaultInjectingDevice.InputOutputError);
        Assert.Equal(FaultInjectingDevice.InputOutputError, ReadAndWait(device, 0, buffer));
        Assert.True(fault.IsFaulted);
        Assert.Contains("read", fault.ToException().Message, StringComparison.Ordinal);
        Assert.Equal(new byte[4096], buffer.ToArray());

        failing.FailReads(0);
        using var next = new AlignedBuffer(4096);
        Assert.Equal(0u, ReadAndWait(device, 0, next));
        Assert.Equal(written, next.ToArray());
    }

    private static FaultReportingDevice Open(string directory, StoreFault fault)
    {
        var device = new FaultReportingDevice(
            new PageCacheFirstDevice(Devices.CreateLogDevice(Path.Combine(directory, "segments.log"), preallocateFile: false, deleteOnClose: true)), fault, "segment files");
        device.Initialize(1L << SegmentSizeBits);
        return device;
    }
}
