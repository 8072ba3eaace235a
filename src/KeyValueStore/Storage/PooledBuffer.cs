using System;
using System.Buffers;

namespace KeyValueStore.Storage;

/// <summary>
/// A value's bytes copied out of the log into an array rented from <see cref="ArrayPool{T}.Shared"/>.
/// Whoever receives one must call <see cref="Return"/> exactly once, after reading it.
/// </summary>
internal struct PooledBuffer
{
    private byte[]? _array;

    private PooledBuffer(byte[] array, int length)
    {
        _array = array;
        Length = length;
    }

    public int Length { get; private set; }

    public readonly ReadOnlySpan<byte> Span => _array is null ? ReadOnlySpan<byte>.Empty : _array.AsSpan(0, Length);

    public readonly ReadOnlyMemory<byte> Memory => _array is null ? ReadOnlyMemory<byte>.Empty : _array.AsMemory(0, Length);

    public static PooledBuffer CopyOf(ReadOnlySpan<byte> source)
    {
        byte[] array = ArrayPool<byte>.Shared.Rent(Math.Max(source.Length, 1));
        source.CopyTo(array);
        return new PooledBuffer(array, source.Length);
    }

    /// <summary>Drops the last <paramref name="count"/> bytes, such as a checksum trailer that is not part of the value.</summary>
    public void TrimEnd(int count) => Length -= count;

    public void Return()
    {
        if (_array is not null)
        {
            ArrayPool<byte>.Shared.Return(_array);
            _array = null;
            Length = 0;
        }
    }
}
