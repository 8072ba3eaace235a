using KeyValueStore.Storage;

namespace KeyValueStore.Tests.Storage;

public class Crc32CTests
{
    [Fact]
    public void Compute_MatchesTheStandardCheckValue_AndContinuesAcrossSpans()
    {
        Assert.Equal(0xE3069283u, Crc32C.Compute("123456789"u8, 0));
        Assert.Equal(Crc32C.Compute("123456789"u8, 0), Crc32C.Compute("6789"u8, Crc32C.Compute("12345"u8, 0)));
    }
}
