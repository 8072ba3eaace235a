using System;
using KeyValueStore.Serialization;
using MessagePack;

namespace KeyValueStore.Tests.Serialization;

/// <summary>The value envelope: plain below the threshold, LZ4 at or above it when that is smaller, exact round trips.</summary>
public class ValueCodecTests
{
    private const int PageSize = 1 << 25;

    [Fact]
    public void AValueBelowTheThreshold_IsStoredPlain_WithOneByteOfEnvelope()
    {
        var codec = new ValueCodec<string>(MessagePackSerializerOptions.Standard, compressionThreshold: 1024, PageSize);
        string value = new('a', 500);

        byte[] stored = Store(codec, value);

        Assert.Equal(ValueEnvelope.Plain, stored[0]);
        Assert.Equal(MessagePackSerializer.Serialize(value), stored[1..]);
        Assert.Equal(value, codec.Decode(stored));
    }

    [Fact]
    public void ACompressibleValueAtTheThreshold_IsStoredAsAnLz4Block_RecordingItsLength()
    {
        var codec = new ValueCodec<string>(MessagePackSerializerOptions.Standard, compressionThreshold: 1024, PageSize);
        string value = new('a', 5_000);
        int payloadLength = MessagePackSerializer.Serialize(value).Length;

        byte[] stored = Store(codec, value);

        Assert.Equal(ValueEnvelope.Lz4Block, stored[0]);
        Assert.Equal(payloadLength, BitConverter.ToInt32(stored, 1));
        Assert.True(stored.Length < payloadLength / 10);
        Assert.Equal(value, codec.Decode(stored));
    }

    [Fact]
    public void AnIncompressibleValue_StaysPlain_AndANegativeThresholdCompressesNothing()
    {
        var bytes = new byte[4_000];
        new Random(1).NextBytes(bytes);
        var compressing = new ValueCodec<byte[]>(MessagePackSerializerOptions.Standard, compressionThreshold: 0, PageSize);
        var off = new ValueCodec<string>(MessagePackSerializerOptions.Standard, compressionThreshold: -1, PageSize);

        byte[] incompressible = Store(compressing, bytes);
        byte[] uncompressed = Store(off, new string('a', 50_000));

        Assert.Equal(ValueEnvelope.Plain, incompressible[0]);
        Assert.Equal(bytes, compressing.Decode(incompressible));
        Assert.Equal(ValueEnvelope.Plain, uncompressed[0]);
        Assert.Equal(new string('a', 50_000), off.Decode(uncompressed));
    }

    [Fact]
    public void TheUsersMessagePackCompression_IsNotAppliedOnTopOfTheEnvelope()
    {
        var codec = new ValueCodec<string>(MessagePackSerializerOptions.Standard.WithCompression(MessagePackCompression.Lz4BlockArray), compressionThreshold: -1, PageSize);
        string value = new('a', 5_000);

        byte[] stored = Store(codec, value);

        Assert.Equal(MessagePackSerializer.Serialize(value), stored[1..]);
    }

    private static byte[] Store<T>(ValueCodec<T> codec, T value)
    {
        RentedBytes stored = codec.CompressIfWorthwhile(codec.EncodePlain(value));
        byte[] copy = stored.Memory.ToArray();
        stored.Return();
        return copy;
    }
}
