using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Where the record a read found lies: its address and the address before it in its hash chain, as FASTER handed them
/// to the reader callback. A locating read (<see cref="PinnedRecord.TryRead"/>) returns this instead of the value.
/// </summary>
/// <remarks>
/// Why not the read's <see cref="RecordMetadata"/>: in FASTER 2.6.5, for a read that went to the disk it holds the
/// pending context's placeholder (the address where the read started, in both fields), not the record found, so a
/// record reached past another key's record on the disk looked like someone else's. The callback's
/// <see cref="ReadInfo"/> has the record actually read.
/// </remarks>
/// <param name="Address">The record's logical address.</param>
/// <param name="PreviousAddress">The address of the record linked before it: no other record of the same key has the same one.</param>
internal readonly record struct RecordLocation(long Address, long PreviousAddress)
{
    private const int EncodedLength = 2 * sizeof(long);

    /// <summary>Where <paramref name="key"/>'s latest live record lies, by a locating read in <paramref name="session"/>; null when it has none (absent or deleted).</summary>
    /// <exception cref="StoreFaultedException">The disk failed: a read from it ends as "not found", which must not pass for a deleted key.</exception>
    /// <remarks>
    /// Through FASTER's synchronous read (<see cref="PinnedRecord.TryRead"/> says why). A read FASTER answers from memory,
    /// or whose page the disk answers at once (from the page cache, <see cref="PageCacheFirstDevice"/>), completes on the
    /// caller's thread without an async method, as a foreground read does: a compaction pass checks every record it scans
    /// this way, and on an overwrite-heavy load compaction's copies allocated half of what the whole process did, most of
    /// it in these checks, each finished on the thread pool (docs/benchmarks.md). A read that waits for the disk is given
    /// up on if the store faults meanwhile: FASTER never answers a read of a failed device. Nor is a read completed here
    /// once the store has faulted; the store's fault is thrown instead (so this may throw rather than return a failed
    /// task: its callers are async methods).
    /// </remarks>
    public static ValueTask<RecordLocation?> OfLatestAsync(StoreSession session, ReadOnlyMemory<byte> key, StoreFault fault)
    {
        if (PinnedRecord.TryRead(session, key.Span, locate: true, out Status status, out PooledBuffer output))
        {
            return new ValueTask<RecordLocation?>(Found(status, output, fault));
        }

        fault.ThrowIfFaulted();
        ValueTask<(Status Status, PooledBuffer Output)> pending = PendingRead.CompleteAsync(session);
        if (pending.IsCompletedSuccessfully)
        {
            (status, output) = pending.Result;
            return new ValueTask<RecordLocation?>(Found(status, output, fault));
        }

        return OfPendingAsync(pending, fault);
    }

    /// <summary>Whether <paramref name="input"/> asks a read to locate the record rather than copy its value.</summary>
    public static bool IsRequestedBy(ref SpanByte input) => input.Length > 0;

    /// <summary>The location of the record a reader callback is reading, as the read's output.</summary>
    public static PooledBuffer Of(ref ReadInfo readInfo)
    {
        Span<byte> bytes = stackalloc byte[EncodedLength];
        BinaryPrimitives.WriteInt64LittleEndian(bytes, readInfo.Address);
        BinaryPrimitives.WriteInt64LittleEndian(bytes[sizeof(long)..], readInfo.RecordInfo.PreviousAddress);
        return PooledBuffer.CopyOf(bytes);
    }

    /// <summary>The rest of <see cref="OfLatestAsync"/> for a read that waits for the disk.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<RecordLocation?> OfPendingAsync(ValueTask<(Status Status, PooledBuffer Output)> pending, StoreFault fault)
    {
        (Status status, PooledBuffer output) = await fault.WaitUnlessFaultedAsync(pending.AsTask()).ConfigureAwait(false);
        return Found(status, output, fault);
    }

    /// <summary>The location a completed locating read found, if any; throws if the store faulted, as a failed disk read ends as "not found".</summary>
    private static RecordLocation? Found(Status status, PooledBuffer output, StoreFault fault)
    {
        RecordLocation? latest = status.Found ? From(output) : null;
        fault.ThrowIfFaulted();
        return latest;
    }

    /// <summary>Reads a location out of a locating read's output and gives the buffer back.</summary>
    /// <exception cref="InvalidOperationException">The read returned something else (the compaction asking fails, and moves nothing).</exception>
    private static RecordLocation From(PooledBuffer output)
    {
        ReadOnlySpan<byte> bytes = output.Span;
        if (bytes.Length != EncodedLength)
        {
            int length = bytes.Length;
            output.Return();
            throw new InvalidOperationException($"A locating read returned {length} bytes, not the {EncodedLength} of a record's location: the engine read a value where it was asked for a location.");
        }

        var location = new RecordLocation(BinaryPrimitives.ReadInt64LittleEndian(bytes), BinaryPrimitives.ReadInt64LittleEndian(bytes[sizeof(long)..]));
        output.Return();
        return location;
    }
}
