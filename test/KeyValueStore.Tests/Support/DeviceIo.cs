using System;
using System.Runtime.InteropServices;
using System.Threading;
using FASTER.core;

namespace KeyValueStore.Tests.Support;

/// <summary>Writes and reads of a FASTER device, waited for, for tests of the store's devices.</summary>
internal static class DeviceIo
{
    public static void Write(IDevice device, byte[] bytes, long address)
    {
        using var buffer = new AlignedBuffer(bytes.Length);
        Marshal.Copy(bytes, 0, buffer.Pointer, bytes.Length);
        using var done = new ManualResetEventSlim();
        uint error = 0;
        device.WriteAsync(buffer.Pointer, (ulong)address, (uint)bytes.Length, (e, _, _) => { error = e; done.Set(); }, null!);
        Assert.True(done.Wait(TimeSpan.FromSeconds(30)), "the write completed");
        Assert.Equal(0u, error);
    }

    public static uint ReadAndWait(IDevice device, long address, AlignedBuffer buffer, DeviceIOCompletionCallback? completing = null, object? context = null)
    {
        using var done = new ManualResetEventSlim();
        uint error = 0;
        device.ReadAsync(
            (ulong)address,
            buffer.Pointer,
            (uint)buffer.Length,
            (e, bytes, completedContext) =>
            {
                error = e;
                completing?.Invoke(e, bytes, completedContext);
                done.Set();
            },
            context!);
        Assert.True(done.Wait(TimeSpan.FromSeconds(30)), "the read completed");
        return error;
    }

    public static byte[] Pattern(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }
}
