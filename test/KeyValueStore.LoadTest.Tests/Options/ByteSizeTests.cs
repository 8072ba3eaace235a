using KeyValueStore.LoadTest.Options;

namespace KeyValueStore.LoadTest.Tests.Options;

public class ByteSizeTests
{
    [Theory]
    [InlineData("0", 0L)]
    [InlineData("256", 256L)]
    [InlineData("4k", 4096L)]
    [InlineData("4K", 4096L)]
    [InlineData("64m", 64L << 20)]
    [InlineData("1g", 1L << 30)]
    [InlineData("1t", 1L << 40)]
    public void TryParse_AcceptsBytesAndBinarySuffixes(string text, long expected)
    {
        Assert.True(ByteSize.TryParse(text, out long bytes));
        Assert.Equal(expected, bytes);
    }

    [Theory]
    [InlineData("")]
    [InlineData("k")]
    [InlineData("-4k")]
    [InlineData("+4")]
    [InlineData("1.5m")]
    [InlineData("4 k")]
    [InlineData("4kb")]
    [InlineData("9999999999t")]
    public void TryParse_RejectsAnythingElse_IncludingOverflow(string text)
    {
        Assert.False(ByteSize.TryParse(text, out _));
    }

    [Theory]
    [InlineData(1000L, "1000")]
    [InlineData(65536L, "64k")]
    [InlineData(64L << 20, "64m")]
    [InlineData(3L << 30, "3g")]
    public void Format_GivesTheShortestExactForm(long bytes, string expected)
    {
        Assert.Equal(expected, ByteSize.Format(bytes));
    }
}
