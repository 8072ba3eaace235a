using K4os.Compression.LZ4;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Tests.Workloads;

public class RecordCodecTests
{
    [Theory]
    [InlineData(16)]
    [InlineData(17)]
    [InlineData(23)]
    [InlineData(256)]
    [InlineData(1000)]
    public void AValue_DecodesToItsIdAndVersion_WithIntactFiller(int size)
    {
        byte[] value = new byte[size];
        RecordCodec.WriteValue(value, 12345, 67);

        DecodedValue decoded = RecordCodec.Decode(value);

        Assert.Equal(new DecodedValue(12345, 67, FillerIntact: true), decoded);
    }

    [Theory]
    [InlineData(16)]
    [InlineData(100)]
    [InlineData(255)]
    public void AnyChangedFillerByte_IsDetected(int position)
    {
        byte[] value = new byte[256];
        RecordCodec.WriteValue(value, 9, 3);
        value[position] ^= 0x01;

        Assert.False(RecordCodec.Decode(value).FillerIntact);
    }

    [Fact]
    public void AChangedVersion_NoLongerMatchesItsFiller()
    {
        byte[] value = new byte[64];
        RecordCodec.WriteValue(value, 9, 3);
        value[8] = 4; // The version's low byte: the value now claims version 4 with version 3's filler.

        DecodedValue decoded = RecordCodec.Decode(value);

        Assert.Equal(4, decoded.Version);
        Assert.False(decoded.FillerIntact);
    }

    [Theory]
    [InlineData(16)]
    [InlineData(45)]
    [InlineData(1024)]
    public void ACompressibleValue_DecodesToItsIdAndVersion_WithTheFillItWasWrittenWith(int size)
    {
        byte[] value = new byte[size];
        RecordCodec.WriteValue(value, 12345, 67, ValueFill.Compressible);

        Assert.Equal(new DecodedValue(12345, 67, FillerIntact: true), RecordCodec.Decode(value, ValueFill.Compressible));
        if (size > RecordCodec.HeaderSize + sizeof(long))
        {
            Assert.False(RecordCodec.Decode(value, ValueFill.Random).FillerIntact);
        }
    }

    [Theory]
    [InlineData(24)] // The first copy of a word.
    [InlineData(33)] // A repeat of it.
    [InlineData(1023)]
    public void AnyChangedByteOfACompressibleFiller_IsDetected(int position)
    {
        byte[] value = new byte[1024];
        RecordCodec.WriteValue(value, 9, 3, ValueFill.Compressible);
        value[position] ^= 0x01;

        Assert.False(RecordCodec.Decode(value, ValueFill.Compressible).FillerIntact);
    }

    [Fact]
    public void ACompressibleKilobyte_ShrinksUnderLz4ToUnderHalf_WhereARandomOneDoesNot()
    {
        byte[] compressible = new byte[1024];
        byte[] random = new byte[1024];
        RecordCodec.WriteValue(compressible, 5, 1, ValueFill.Compressible);
        RecordCodec.WriteValue(random, 5, 1);
        byte[] target = new byte[LZ4Codec.MaximumOutputSize(1024)];

        Assert.InRange(LZ4Codec.Encode(compressible, target, LZ4Level.L00_FAST), 1, 511);
        // 398 and 1,023 bytes when written: a random filler leaves LZ4 only the zeros of the id and version.
        Assert.InRange(LZ4Codec.Encode(random, target, LZ4Level.L00_FAST), 1008, target.Length);
    }

    [Fact]
    public void Keys_AreBigEndian_SoIdOrderIsKeyOrder()
    {
        byte[] low = new byte[8];
        byte[] high = new byte[8];
        RecordCodec.WriteKey(low, 255);
        RecordCodec.WriteKey(high, 256);

        Assert.True(System.MemoryExtensions.SequenceCompareTo<byte>(low, high) < 0);
    }
}
