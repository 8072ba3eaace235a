using System;
using System.Buffers.Binary;
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
    /// Through FASTER's synchronous read (<see cref="PinnedRecord.TryRead"/> says why). One that went to the disk is
    /// finished from the thread pool, and given up on if the store faults meanwhile: after a failed flush FASTER can spin
    /// for good inside a read from the disk, waiting for a page to close (seen in CI, where it hung a compaction after
    /// the disk-failure test). The thread stays with it.
    /// </remarks>
    public static async ValueTask<RecordLocation?> OfLatestAsync(StoreSession session, ReadOnlyMemory<byte> key, StoreFault fault)
    {
        if (!PinnedRecord.TryRead(session, key.Span, locate: true, out Status status, out PooledBuffer output))
        {
            (status, output) = await fault.WaitUnlessFaultedAsync(Task.Run(() => PendingRead.CompleteAsync(session).AsTask())).ConfigureAwait(false);
        }

        RecordLocation? latest = status.Found ? From(output) : null;
        fault.ThrowIfFaulted();
        return latest;
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
