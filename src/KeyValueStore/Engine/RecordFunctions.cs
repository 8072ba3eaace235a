using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// The FASTER callbacks of every store session. Upserts copy the value into the log (inherited from
/// <see cref="SpanByteFunctions{Key, Output, Context}"/>); reads copy it out into a pooled buffer, or, when their input
/// asks, where the record lies (<see cref="RecordLocation"/>); and
/// read-modify-write is used for one thing only: deleting a key while learning whether it was live.
/// </summary>
/// <remarks>
/// Why deletes go through RMW: FASTER's own Delete appends a tombstone without reading the disk, so for
/// a key whose record is only on disk it reports "not found", exactly as for an absent key. RMW fetches
/// the on-disk record when needed and runs atomically per key, so "found" is exact: the updaters run only
/// when a live record exists, and <see cref="RMWAction.ExpireAndStop"/> turns that record into a tombstone.
/// When no live record exists, <see cref="NeedInitialUpdate"/> declines and nothing is written.
/// </remarks>
/// <param name="valueChecksums">Whether values carry a seal (<see cref="ValueChecksum"/>), which a delete in place inverts.</param>
/// <param name="beforeNewRecordLinked">Tests only (<see cref="StoreSettings.BeforeNewRecordLinked"/>); null otherwise.</param>
internal sealed class RecordFunctions(bool valueChecksums = false, System.Action<byte[]>? beforeNewRecordLinked = null) : SpanByteFunctions<SpanByte, PooledBuffer, Empty>
{
    /// <summary>Fills a record an upsert created; FASTER links it into the index once this returns.</summary>
    public override bool SingleWriter(ref SpanByte key, ref SpanByte input, ref SpanByte src, ref SpanByte dst, ref PooledBuffer output, ref UpsertInfo upsertInfo, WriteReason reason)
    {
        bool written = base.SingleWriter(ref key, ref input, ref src, ref dst, ref output, ref upsertInfo, reason);
        beforeNewRecordLinked?.Invoke(key.AsReadOnlySpan().ToArray());
        return written;
    }

    public override bool SingleReader(ref SpanByte key, ref SpanByte input, ref SpanByte value, ref PooledBuffer dst, ref ReadInfo readInfo)
    {
        dst = RecordLocation.IsRequestedBy(ref input) ? RecordLocation.Of(ref readInfo) : PooledBuffer.CopyOf(value.AsReadOnlySpan());
        return true;
    }

    public override bool ConcurrentReader(ref SpanByte key, ref SpanByte input, ref SpanByte value, ref PooledBuffer dst, ref ReadInfo readInfo)
    {
        dst = RecordLocation.IsRequestedBy(ref input) ? RecordLocation.Of(ref readInfo) : PooledBuffer.CopyOf(value.AsReadOnlySpan());
        return true;
    }

    public override bool NeedInitialUpdate(ref SpanByte key, ref SpanByte input, ref PooledBuffer output, ref RMWInfo rmwInfo) => false;

    public override bool InPlaceUpdater(ref SpanByte key, ref SpanByte input, ref SpanByte value, ref PooledBuffer output, ref RMWInfo rmwInfo)
    {
        // The record keeps its value and gets the tombstone bit: its seal must say "deleted" too (see ValueChecksum).
        if (valueChecksums)
        {
            ValueChecksum.MarkDeleted(value.AsSpan());
        }

        rmwInfo.Action = RMWAction.ExpireAndStop;
        return false;
    }

    public override bool CopyUpdater(ref SpanByte key, ref SpanByte input, ref SpanByte oldValue, ref SpanByte newValue, ref PooledBuffer output, ref RMWInfo rmwInfo)
    {
        rmwInfo.Action = RMWAction.ExpireAndStop;
        return false;
    }
}
