using System;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// The one place that points FASTER <see cref="SpanByte"/>s at caller memory. Each method pins the
/// buffers only for the synchronous start of the FASTER call: if the operation has to go pending,
/// FASTER copies the key and value into its own heap containers before returning, so nothing here
/// outlives the <c>fixed</c> block.
/// </summary>
internal static unsafe class PinnedRecord
{
    /// <summary>The size FASTER gives a record: 8-byte header, key with its 4-byte length padded to 8, value with its 4-byte length, padded to 8.</summary>
    public static long SizeInLog(int keyLength, int valueLength)
    {
        const int Alignment = 8;
        long key = (sizeof(int) + (long)keyLength + Alignment - 1) & ~(Alignment - 1);
        long record = RecordInfo.GetLength() + key + sizeof(int) + valueLength;
        return (record + Alignment - 1) & ~(Alignment - 1);
    }

    public static ValueTask<FasterKV<SpanByte, SpanByte>.UpsertAsyncResult<SpanByte, PooledBuffer, Empty>> UpsertAsync(
        StoreSession session, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        fixed (byte* keyPointer = key)
        fixed (byte* valuePointer = value)
        {
            var keySpanByte = SpanByte.FromPointer(keyPointer, key.Length);
            var valueSpanByte = SpanByte.FromPointer(valuePointer, value.Length);
            return session.UpsertAsync(ref keySpanByte, ref valueSpanByte);
        }
    }

    public static ValueTask<FasterKV<SpanByte, SpanByte>.ReadAsyncResult<SpanByte, PooledBuffer, Empty>> ReadAsync(
        StoreSession session, ReadOnlySpan<byte> key)
    {
        fixed (byte* keyPointer = key)
        {
            var keySpanByte = SpanByte.FromPointer(keyPointer, key.Length);
            return session.ReadAsync(ref keySpanByte);
        }
    }

    /// <summary>Reads where <paramref name="key"/>'s latest record lies (<see cref="RecordLocation"/>) rather than its value.</summary>
    public static ValueTask<FasterKV<SpanByte, SpanByte>.ReadAsyncResult<SpanByte, PooledBuffer, Empty>> LocateAsync(
        StoreSession session, ReadOnlySpan<byte> key)
    {
        byte locate = 1;
        fixed (byte* keyPointer = key)
        {
            var keySpanByte = SpanByte.FromPointer(keyPointer, key.Length);
            var input = SpanByte.FromPointer(&locate, 1);
            return session.ReadAsync(ref keySpanByte, ref input);
        }
    }

    /// <summary>Deletes through RMW so the status says whether a live record existed; see <see cref="RecordFunctions"/>.</summary>
    public static ValueTask<FasterKV<SpanByte, SpanByte>.RmwAsyncResult<SpanByte, PooledBuffer, Empty>> DeleteAsync(
        StoreSession session, ReadOnlySpan<byte> key)
    {
        fixed (byte* keyPointer = key)
        {
            var keySpanByte = SpanByte.FromPointer(keyPointer, key.Length);
            SpanByte noInput = default;
            return session.RMWAsync(ref keySpanByte, ref noInput);
        }
    }
}
