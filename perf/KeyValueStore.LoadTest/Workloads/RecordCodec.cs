using System;
using System.Buffers.Binary;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>
/// The bytes of a record. A key is the record id as 8 big-endian bytes (so ids in order are keys in
/// order, the friendliest case for a B-tree peer). A value is the id (8 bytes), a version (8 bytes),
/// then filler computed from both, so a read can be checked completely without keeping a copy of
/// what was written: wrong key, stale or future version, torn or corrupted bytes all show. The filler is
/// random or compressible (<see cref="ValueFill"/>); a value is decoded with the fill it was written with.
/// </summary>
internal static class RecordCodec
{
    public const int KeySize = sizeof(long);
    public const int HeaderSize = 2 * sizeof(long);

    public static void WriteKey(Span<byte> destination, long id) => BinaryPrimitives.WriteInt64BigEndian(destination, id);

    public static void WriteValue(Span<byte> destination, long id, long version, ValueFill fill = ValueFill.Random)
    {
        BinaryPrimitives.WriteInt64LittleEndian(destination, id);
        BinaryPrimitives.WriteInt64LittleEndian(destination[sizeof(long)..], version);
        var filler = new FillerWords(id, version, fill);
        Span<byte> rest = destination[HeaderSize..];
        while (rest.Length >= sizeof(ulong))
        {
            BinaryPrimitives.WriteUInt64LittleEndian(rest, filler.Next());
            rest = rest[sizeof(ulong)..];
        }

        if (rest.Length > 0)
        {
            Span<byte> last = stackalloc byte[sizeof(ulong)];
            BinaryPrimitives.WriteUInt64LittleEndian(last, filler.Next());
            last[..rest.Length].CopyTo(rest);
        }
    }

    /// <summary>Reads the id and version of a value, and whether the filler is exactly what that id and version write.</summary>
    public static DecodedValue Decode(ReadOnlySpan<byte> value, ValueFill fill = ValueFill.Random)
    {
        if (value.Length < HeaderSize)
        {
            return new DecodedValue(-1, -1, FillerIntact: false);
        }

        long id = BinaryPrimitives.ReadInt64LittleEndian(value);
        long version = BinaryPrimitives.ReadInt64LittleEndian(value[sizeof(long)..]);
        var filler = new FillerWords(id, version, fill);
        ReadOnlySpan<byte> rest = value[HeaderSize..];
        bool intact = true;
        while (rest.Length >= sizeof(ulong))
        {
            intact &= BinaryPrimitives.ReadUInt64LittleEndian(rest) == filler.Next();
            rest = rest[sizeof(ulong)..];
        }

        if (rest.Length > 0)
        {
            Span<byte> last = stackalloc byte[sizeof(ulong)];
            BinaryPrimitives.WriteUInt64LittleEndian(last, filler.Next());
            intact &= rest.SequenceEqual(last[..rest.Length]);
        }

        return new DecodedValue(id, version, intact);
    }

    private static ulong FillerSeed(long id, long version) => SplitMix64.Mix(unchecked(((ulong)id * 0x9E3779B97F4A7C15) ^ (ulong)version));

    /// <summary>The filler's 8-byte words, in order, for one id, version and fill.</summary>
    private struct FillerWords(long id, long version, ValueFill fill)
    {
        private const int CompressibleRepeats = 4;

        private SplitMix64 _random = new(FillerSeed(id, version));
        private ulong _word;
        private int _index;

        public ulong Next()
        {
            if (fill == ValueFill.Random || _index++ % CompressibleRepeats == 0)
            {
                _word = _random.NextUInt64();
            }

            return _word;
        }
    }
}
