using System;
using KeyValueStore.Serialization;
using MessagePack;

namespace KeyValueStore.Tests.Serialization;

/// <summary>The value envelope: plain below the threshold, LZ4 at or above it when that is smaller (attempts backing off after a run that was not), exact round trips.</summary>
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
    public void AfterARunOfIncompressibleValues_CompressibleOnesAreCompressedAgain_OnceOneIsTried_AndAllReadBack()
    {
        var codec = new ValueCodec<byte[]>(MessagePackSerializerOptions.Standard, compressionThreshold: 0, PageSize);
        var random = new Random(7);
        byte[] compressible = new byte[2_000]; // Zeros.
        int storedPlainWhileBackedOff = 0;
        for (int round = 0; round < 20; round++)
        {
            for (int i = 0; i < CompressionBackoff.IncompressibleInARowToBackOff; i++)
            {
                var incompressible = new byte[2_000];
                random.NextBytes(incompressible);
                byte[] stored = Store(codec, incompressible);
                Assert.Equal(ValueEnvelope.Plain, stored[0]);
                Assert.Equal(incompressible, codec.Decode(stored));
            }

            // Tried with a chance of one in sixteen each: 2,000 untried in a row would take odds of about 1 in 10^56.
            int plain = 0;
            while (Store(codec, compressible) is { } stored && stored[0] == ValueEnvelope.Plain)
            {
                Assert.Equal(compressible, codec.Decode(stored));
                Assert.True(++plain < 2_000, "no compressible value was tried again");
            }

            storedPlainWhileBackedOff += plain;
            for (int i = 0; i < 50; i++)
            {
                byte[] stored = Store(codec, compressible);
                Assert.Equal(ValueEnvelope.Lz4Block, stored[0]);
                Assert.Equal(compressible, codec.Decode(stored));
            }
        }

        // 300 expected; none would mean the codec tries every value (odds of 1 in 16^20 otherwise).
        Assert.True(storedPlainWhileBackedOff > 0, "every compressible value right after a run of incompressible ones was tried: no back-off");
    }

    [Fact]
    public void InARandomMixWhereAFifthOfTheValuesCompress_AlmostNoneOfThemIsStoredPlain()
    {
        // A back-off after 8 misses in a row left 72% of them plain in such a mix; a run of 64 misses comes by about once
        // in 1.6 million values here, and would cost a few dozen.
        var codec = new ValueCodec<byte[]>(MessagePackSerializerOptions.Standard, compressionThreshold: 0, PageSize);
        var random = new Random(11);
        byte[] compressible = new byte[2_000];
        int compressibleValues = 0;
        int storedPlain = 0;
        for (int i = 0; i < 10_000; i++)
        {
            bool compresses = random.Next(5) == 0;
            byte[] value = compresses ? compressible : new byte[2_000];
            if (!compresses)
            {
                random.NextBytes(value);
            }

            byte[] stored = Store(codec, value);
            Assert.Equal(value, codec.Decode(stored));
            compressibleValues += compresses ? 1 : 0;
            storedPlain += compresses && stored[0] == ValueEnvelope.Plain ? 1 : 0;
        }

        Assert.True(storedPlain * 20 < compressibleValues, $"{storedPlain} of {compressibleValues} compressible values were stored plain");
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
