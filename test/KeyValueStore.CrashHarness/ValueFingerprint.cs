using System;
using System.Globalization;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// A value's length and a 64-bit FNV-1a hash of its bytes: what the worker reports of each key it recovered, so that the
/// checker can compare values of up to a megabyte without the whole value crossing the pipe.
/// </summary>
internal readonly record struct ValueFingerprint(int Length, ulong Hash)
{
    public static ValueFingerprint Of(ReadOnlySpan<byte> value)
    {
        ulong hash = 14695981039346656037UL;
        foreach (byte b in value)
        {
            hash = (hash ^ b) * 1099511628211UL;
        }

        return new ValueFingerprint(value.Length, hash);
    }

    /// <summary>Reads the form <see cref="ToString"/> writes: length, a space, the hash in hexadecimal.</summary>
    public static ValueFingerprint Parse(string length, string hash) =>
        new(int.Parse(length, CultureInfo.InvariantCulture), ulong.Parse(hash, NumberStyles.HexNumber, CultureInfo.InvariantCulture));

    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Length} {Hash:x16}");
}
