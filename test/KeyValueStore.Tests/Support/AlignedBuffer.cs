using System;
using System.Runtime.InteropServices;

namespace KeyValueStore.Tests.Support;

/// <summary>Sector-aligned unmanaged memory, as FASTER hands a device.</summary>
internal sealed class AlignedBuffer : IDisposable
{
    private const int Alignment = 4096;
    private readonly IntPtr _allocation;

    public AlignedBuffer(int length)
    {
        Length = length;
        _allocation = Marshal.AllocHGlobal(length + Alignment);
        Pointer = (IntPtr)(((long)_allocation + Alignment - 1) & ~(long)(Alignment - 1));
    }

    public IntPtr Pointer { get; }

    public int Length { get; }

    public byte[] ToArray()
    {
        var bytes = new byte[Length];
        Marshal.Copy(Pointer, bytes, 0, Length);
        return bytes;
    }

    public void Dispose() => Marshal.FreeHGlobal(_allocation);
}
