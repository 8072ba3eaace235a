using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace KeyValueStore.Storage;

/// <summary>
/// The bytes a record's read took past what FASTER asked for, kept by the reading thread while FASTER's completion of
/// that read runs, so that <see cref="PageCacheFirstDevice"/> can answer the read FASTER issues next from inside it.
/// </summary>
/// <remarks>
/// <para>
/// FASTER 2.6.5 reads a record on disk before it knows its length: its first read is as long as its guess at a record
/// (24 bytes for <c>SpanByte</c> keys and values, one sector once aligned), and when the record is longer, its
/// completion reads the record again at its real length. Both reads go to the device: a record of 1 KB took two
/// <c>preadv2</c> calls (4.46 million in 5 seconds in which the store read 365,000-494,000 records a second;
/// docs/benchmarks.md, "Records read ahead"). A completion the device calls before returning runs on the reading thread, and so does the read it issues,
/// so the bytes read ahead are kept per thread, valid only while that completion runs (<see cref="Hold"/>).
/// </para>
/// <para>
/// The bytes past what FASTER asked for are bytes of the same segment file at the time of the first read: the second
/// read is of the same record (or, when the key differs, of an older record in its chain), wholly below the log's head
/// and so already written; what lies past the record is not looked at. Reads of another device, segment or range go to
/// the file.
/// </para>
/// </remarks>
internal sealed unsafe class RecordReadAhead
{
    /// <summary>The most bytes one read takes, FASTER's request included: records longer than that are read twice.</summary>
    public const int Capacity = 8 * 1024;

    [ThreadStatic]
    private static RecordReadAhead? t_ofThisThread;

    private readonly byte[] _bytes = GC.AllocateArray<byte>(Capacity, pinned: true);
    private Held _held;
    private long _fills;
    private long _readsCounted;

    /// <summary>Gets the reading thread's read-ahead.</summary>
    public static RecordReadAhead OfThisThread => t_ofThisThread ??= new RecordReadAhead();

    /// <summary>Gets where reads of up to <see cref="Capacity"/> bytes go before they are handed out.</summary>
    public IntPtr Buffer => (IntPtr)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_bytes));

    /// <summary>
    /// Copies <paramref name="length"/> bytes at <paramref name="offset"/> of <paramref name="owner"/>'s segment
    /// <paramref name="segment"/> to <paramref name="destination"/> when a completion of a read that took them runs on
    /// this thread; false otherwise.
    /// </summary>
    public bool TryCopy(object owner, int segment, long offset, IntPtr destination, uint length)
    {
        Held held = _held;
        if (held.Owner != owner || held.Fill != _fills || held.Segment != segment || offset < held.Offset || offset + length > held.Offset + held.Length)
        {
            return false;
        }

        new ReadOnlySpan<byte>(_bytes, (int)(offset - held.Offset), (int)length).CopyTo(new Span<byte>((void*)destination, (int)length));
        return true;
    }

    /// <summary>
    /// How many bytes past its request the read whose completion runs on this thread needed, when this read is that
    /// completion's second read of the same record (<paramref name="offset"/> is where that read began); 0 otherwise.
    /// </summary>
    public uint NeedOf(object owner, int segment, long offset, uint length)
    {
        Held held = _held;
        return held.Owner == owner && held.Segment == segment && offset == held.Offset && length > held.Requested ? length - held.Requested : 0;
    }

    /// <summary>Counts a read on this thread; true once every <paramref name="periodReads"/> reads, when a period ends.</summary>
    public bool CountReadEndingPeriod(int periodReads) => ++_readsCounted % periodReads == 0;

    /// <summary>Marks the buffer as filled anew: what a completion further out held is gone.</summary>
    public void Filled() => _fills++;

    /// <summary>
    /// Keeps the first <paramref name="length"/> bytes of the buffer, read at <paramref name="offset"/> of the segment
    /// for a request of <paramref name="requested"/> bytes, valid until the returned scope ends: around the completion.
    /// </summary>
    public Holding Hold(object owner, int segment, long offset, uint requested, uint length)
    {
        Held outer = _held;
        _held = new Held(owner, segment, offset, requested, length, _fills);
        return new Holding(this, outer);
    }

    /// <summary>Ends a completion's hold: the completion further out, if any, holds again what it held (unless the buffer was filled since).</summary>
    public readonly struct Holding(RecordReadAhead readAhead, Held outer) : IDisposable
    {
        public void Dispose() => readAhead._held = outer;
    }

    /// <summary>What a running completion's read took: <see cref="Length"/> bytes from <see cref="Offset"/>, the first <see cref="Requested"/> of them asked for.</summary>
    public readonly record struct Held(object? Owner, int Segment, long Offset, uint Requested, uint Length, long Fill);
}
