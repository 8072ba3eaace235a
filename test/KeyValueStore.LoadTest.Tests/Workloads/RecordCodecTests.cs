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
