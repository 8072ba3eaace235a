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

    /// <summary>
    /// Starts a read of <paramref name="key"/>'s value, or, with <paramref name="locate"/>, of where its latest record
    /// lies (<see cref="RecordLocation"/>), through FASTER's synchronous read API. Returns false when the read went to
    /// the disk: <see cref="PendingRead"/> then finishes it.
    /// </summary>
    /// <remarks>
    /// Not FASTER's <c>ReadAsync</c>: when a read that went to the disk finds that newer records of its key's chain have
    /// meanwhile left memory, FASTER 2.6.5 issues it again, and <c>ReadAsyncResult.Complete()</c> then disposes the
    /// pending state (the pooled key and input buffers) that the second issue still uses, and issues the read once more.
    /// The buffers went back to FASTER's pool while in use: a locating read returned the key's value, a later read in
    /// another session found nothing for a key that was there (<c>ReissuedReadTests</c>), deletes missed live keys, and
    /// reads spun issuing disk reads for good. The synchronous API hands the pending state to the second issue.
    /// </remarks>
    public static bool TryRead(StoreSession session, ReadOnlySpan<byte> key, bool locate, out Status status, out PooledBuffer output)
    {
        byte locateFlag = 1;
        fixed (byte* keyPointer = key)
        {
            var keySpanByte = SpanByte.FromPointer(keyPointer, key.Length);
            SpanByte input = locate ? SpanByte.FromPointer(&locateFlag, 1) : default;
            output = default;
            status = session.Read(ref keySpanByte, ref input, ref output);
            return !status.IsPending;
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
