using System;
using System.Runtime.InteropServices;

namespace KeyValueStore.Storage;

/// <summary>
/// A read of a file that the operating system answers only from its page cache, never waiting for the device: Linux's
/// <c>preadv2</c> with <c>RWF_NOWAIT</c> (Linux 4.14 and later, glibc 2.26 and later).
/// </summary>
internal static partial class NonBlockingFileRead
{
    private const int ReadWithoutWaiting = 0x8; // RWF_NOWAIT
    private const int WouldBlock = 11; // EAGAIN
    private const int NotSupportedHere = 95; // EOPNOTSUPP
    private const int NoSuchCall = 38; // ENOSYS
    private const int InvalidArgument = 22; // EINVAL: an older kernel that does not know the flag

    /// <summary>Gets whether this platform may have the call at all: 64-bit Linux.</summary>
    public static bool MayBeSupported { get; } = OperatingSystem.IsLinux() && Environment.Is64BitProcess;

    /// <summary>
    /// Reads up to <paramref name="length"/> bytes at <paramref name="offset"/> of the file <paramref name="descriptor"/>
    /// into <paramref name="destination"/>, as many as the page cache holds from there on; <see cref="NonBlockingReadResult.Read"/>
    /// when those were at least <paramref name="minimum"/>, with <paramref name="read"/> saying how many.
    /// </summary>
    public static unsafe NonBlockingReadResult TryReadAtLeast(nint descriptor, IntPtr destination, uint length, uint minimum, long offset, out uint read)
    {
        var vector = new IoVector { Base = destination, Length = length };
        nint result;
        read = 0;
        try
        {
            result = PreadV2((int)descriptor, &vector, 1, offset, ReadWithoutWaiting);
        }
        catch (EntryPointNotFoundException)
        {
            return NonBlockingReadResult.Unsupported;
        }

        if (result >= minimum)
        {
            read = (uint)result;
            return NonBlockingReadResult.Read;
        }

        if (result >= 0)
        {
            return NonBlockingReadResult.NotCached; // Part of it cached, or the file ends first: the device's own read decides.
        }

        return Marshal.GetLastPInvokeError() switch
        {
            WouldBlock => NonBlockingReadResult.NotCached,
            NotSupportedHere or NoSuchCall or InvalidArgument => NonBlockingReadResult.Unsupported,
            _ => NonBlockingReadResult.NotCached, // An I/O error: the device's own read meets it again and reports it.
        };
    }

    [LibraryImport("libc", EntryPoint = "preadv2", SetLastError = true)]
    private static unsafe partial nint PreadV2(int descriptor, IoVector* vectors, int count, long offset, int flags);

    [StructLayout(LayoutKind.Sequential)]
    private struct IoVector
    {
        public IntPtr Base;
        public nuint Length;
    }
}
