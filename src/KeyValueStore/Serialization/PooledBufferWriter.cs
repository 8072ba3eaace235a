using System;
using System.Buffers;

namespace KeyValueStore.Serialization;

/// <summary>
/// An <see cref="IBufferWriter{T}"/> that writes into arrays rented from <see cref="ArrayPool{T}.Shared"/> and hands the
/// finished array over as <see cref="RentedBytes"/>. One writer per thread is reused, so serializing allocates nothing.
/// </summary>
/// <remarks>
/// Serialization is synchronous, so a writer is taken and given back on one thread, before any await. A writer in use
/// is not the cached one, so a serializer that (against all advice) serialized through the store again would get a
/// writer of its own.
/// </remarks>
internal sealed class PooledBufferWriter : IBufferWriter<byte>
{
    private const int InitialSize = 256;

    [ThreadStatic]
    private static PooledBufferWriter? t_cached;

    private byte[]? _buffer;
    private int _written;

    private PooledBufferWriter()
    {
    }

    /// <summary>Gets the number of bytes written so far.</summary>
    public int WrittenCount => _written;

    /// <summary>Takes this thread's writer (or a new one) with nothing written.</summary>
    public static PooledBufferWriter Take()
    {
        PooledBufferWriter writer = t_cached ?? new PooledBufferWriter();
        t_cached = null;
        return writer;
    }

    /// <summary>Gets the bytes written so far; valid until the next write.</summary>
    public Span<byte> WrittenSpan => _buffer is null ? Span<byte>.Empty : _buffer.AsSpan(0, _written);

    public void Advance(int count)
    {
        if (count < 0 || _buffer is null || _written + count > _buffer.Length)
        {
            throw new ArgumentOutOfRangeException(nameof(count), count, "Advanced past the buffer it was given.");
        }

        _written += count;
    }

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        EnsureFree(sizeHint);
        return _buffer.AsMemory(_written);
    }

    public Span<byte> GetSpan(int sizeHint = 0)
    {
        EnsureFree(sizeHint);
        return _buffer.AsSpan(_written);
    }

    /// <summary>Hands the written bytes to the caller, who returns them; this writer goes back to the thread's cache, empty.</summary>
    public RentedBytes Detach()
    {
        var bytes = _buffer is null ? default : new RentedBytes(_buffer, _written);
        _buffer = null;
        _written = 0;
        t_cached = this;
        return bytes;
    }

    /// <summary>Drops what was written (after a failed serialization) and goes back to the thread's cache.</summary>
    public void Abandon()
    {
        if (_buffer is not null)
        {
            ArrayPool<byte>.Shared.Return(_buffer);
        }

        _buffer = null;
        _written = 0;
        t_cached = this;
    }

    private void EnsureFree(int sizeHint)
    {
        int needed = Math.Max(sizeHint, 1);
        if (_buffer is null)
        {
            _buffer = ArrayPool<byte>.Shared.Rent(Math.Max(needed, InitialSize));
            return;
        }

        if (_buffer.Length - _written >= needed)
        {
            return;
        }

        int size = (int)Math.Min(Array.MaxLength, Math.Max((long)_buffer.Length * 2, (long)_written + needed));
        byte[] larger = ArrayPool<byte>.Shared.Rent(size);
        _buffer.AsSpan(0, _written).CopyTo(larger);
        ArrayPool<byte>.Shared.Return(_buffer);
        _buffer = larger;
    }
}
