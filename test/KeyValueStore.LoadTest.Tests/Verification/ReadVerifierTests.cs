using System;
using KeyValueStore.LoadTest.Verification;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Tests.Verification;

public class ReadVerifierTests
{
    private const int ValueSize = 64;

    private static byte[] Value(long id, long version)
    {
        byte[] value = new byte[ValueSize];
        RecordCodec.WriteValue(value, id, version);
        return value;
    }

    private static bool Check(ReadVerifier verifier, long id, long lowest, long highest, byte[]? value) =>
        verifier.Check("run", OperationType.Read, id, lowest, highest, value?.Length ?? -1, value ?? Array.Empty<byte>());

    [Fact]
    public void AVersionInsideTheWindow_IsAccepted()
    {
        var verifier = new ReadVerifier(ValueSize);

        Assert.True(Check(verifier, 5, 2, 2, Value(5, 2)));
        Assert.True(Check(verifier, 5, 2, 3, Value(5, 3)));
        Assert.True(Check(verifier, 5, 0, 0, null));
        Assert.True(Check(verifier, 5, 0, 1, null)); // The first write may not have landed yet.
        Assert.Equal(0, verifier.Mismatches);
    }

    [Theory]
    [InlineData(5L, 3L, 3L, 5L, 2L, "version 2")]                   // stale
    [InlineData(5L, 3L, 3L, 5L, 4L, "version 4")]                   // from the future
    [InlineData(5L, 3L, 3L, 6L, 3L, "value of record 6")]           // another key's value
    [InlineData(5L, 0L, 0L, 5L, 1L, "never written")]               // a value for a key never written
    public void AWrongValue_IsAMismatch(long id, long lowest, long highest, long valueId, long valueVersion, string observed)
    {
        var verifier = new ReadVerifier(ValueSize);

        Assert.False(Check(verifier, id, lowest, highest, Value(valueId, valueVersion)));

        Assert.Equal(1, verifier.Mismatches);
        Mismatch mismatch = Assert.Single(verifier.Examples);
        Assert.Contains(observed, mismatch.Observed, StringComparison.Ordinal);
        Assert.Equal(id, mismatch.KeyId);
    }

    [Fact]
    public void AMissingValue_ACorruptedOne_AndAWrongLength_AreMismatches()
    {
        var verifier = new ReadVerifier(ValueSize);
        byte[] corrupted = Value(5, 1);
        corrupted[40] ^= 0xFF;

        Assert.False(Check(verifier, 5, 1, 1, null));
        Assert.False(Check(verifier, 5, 1, 1, corrupted));
        Assert.False(Check(verifier, 5, 1, 1, Value(5, 1).AsSpan(0, 32).ToArray()));

        Assert.Equal(3, verifier.Mismatches);
    }

    [Fact]
    public void OnlyTheFirstMismatches_AreKept_ButAllAreCounted()
    {
        var verifier = new ReadVerifier(ValueSize);
        for (int i = 0; i < ReadVerifier.MaxExamples + 5; i++)
        {
            Check(verifier, i, 1, 1, null);
        }

        Assert.Equal(ReadVerifier.MaxExamples + 5, verifier.Mismatches);
        Assert.Equal(ReadVerifier.MaxExamples, verifier.Examples.Count);
    }
}
