using System;
using System.Buffers.Binary;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>
/// The bytes of a record. A key is the record id as 8 big-endian bytes (so ids in order are keys in
/// order, the friendliest case for a B-tree peer). A value is the id (8 bytes), a version (8 bytes),
/// then filler computed from both, so a read can be checked completely without keeping a copy of
/// what was written: wrong key, stale or future version, torn or corrupted bytes all show.
/// </summary>
internal static class RecordCodec
{
    public const int KeySize = sizeof(long);
    public const int HeaderSize = 2 * sizeof(long);

    public static void WriteKey(Span<byte> destination, long id) => BinaryPrimitives.WriteInt64BigEndian(destination, id);

    public static void WriteValue(Span<byte> destination, long id, long version)
    {
        BinaryPrimitives.WriteInt64LittleEndian(destination, id);
        BinaryPrimitives.WriteInt64LittleEndian(destination[sizeof(long)..], version);
        var filler = new SplitMix64(FillerSeed(id, version));
        Span<byte> rest = destination[HeaderSize..];
        while (rest.Length >= sizeof(ulong))
        {
            BinaryPrimitives.WriteUInt64LittleEndian(rest, filler.NextUInt64());
            rest = rest[sizeof(ulong)..];
        }

        if (rest.Length > 0)
        {
            Span<byte> last = stackalloc byte[sizeof(ulong)];
            BinaryPrimitives.WriteUInt64LittleEndian(last, filler.NextUInt64());
            last[..rest.Length].CopyTo(rest);
        }
    }

    /// <summary>Reads the id and version of a value, and whether the filler is exactly what that id and version write.</summary>
    public static DecodedValue Decode(ReadOnlySpan<byte> value)
    {
        if (value.Length < HeaderSize)
        {
            return new DecodedValue(-1, -1, FillerIntact: false);
        }

        long id = BinaryPrimitives.ReadInt64LittleEndian(value);
        long version = BinaryPrimitives.ReadInt64LittleEndian(value[sizeof(long)..]);
        var filler = new SplitMix64(FillerSeed(id, version));
        ReadOnlySpan<byte> rest = value[HeaderSize..];
        bool intact = true;
        while (rest.Length >= sizeof(ulong))
        {
            intact &= BinaryPrimitives.ReadUInt64LittleEndian(rest) == filler.NextUInt64();
            rest = rest[sizeof(ulong)..];
        }

        if (rest.Length > 0)
        {
            Span<byte> last = stackalloc byte[sizeof(ulong)];
            BinaryPrimitives.WriteUInt64LittleEndian(last, filler.NextUInt64());
            intact &= rest.SequenceEqual(last[..rest.Length]);
        }

        return new DecodedValue(id, version, intact);
    }

    private static ulong FillerSeed(long id, long version) => SplitMix64.Mix(unchecked(((ulong)id * 0x9E3779B97F4A7C15) ^ (ulong)version));
}
