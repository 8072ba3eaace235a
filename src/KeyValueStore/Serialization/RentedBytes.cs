using System;
using System.Buffers;

namespace KeyValueStore.Serialization;

/// <summary>
/// Serialized bytes in an array rented from <see cref="ArrayPool{T}.Shared"/>. The one owner calls <see cref="Return"/>
/// exactly once, in a <c>finally</c>, after the engine is done with <see cref="Memory"/>; nothing else sees the array.
/// </summary>
internal readonly struct RentedBytes
{
    private readonly byte[]? _array;

    public RentedBytes(byte[] array, int length)
    {
        _array = array;
        Length = length;
    }

    public int Length { get; }

    public ReadOnlyMemory<byte> Memory => _array is null ? ReadOnlyMemory<byte>.Empty : _array.AsMemory(0, Length);

    public void Return()
    {
        if (_array is not null)
        {
            ArrayPool<byte>.Shared.Return(_array);
        }
    }
}
