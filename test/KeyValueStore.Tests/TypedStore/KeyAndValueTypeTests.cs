using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>Each shape of value read back from disk; the shapes as keys and in memory are in the conformance suite (StoreConformanceTests.Types).</summary>
public class KeyAndValueTypeTests
{
    public static TheoryData<string> Shapes() => ["object", "fixed struct", "variable struct", "string", "int", "long", "double", "Guid", "byte[]"];

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task EachShape_AsAValue_ReadsBackEqual_FromMemoryAndFromDisk(string shape)
    {
        switch (shape)
        {
            case "object": await RoundTripAsValueAsync(Customer.Sample, (a, b) => a.Equals(b)); break;
            case "fixed struct": await RoundTripAsValueAsync(i => new Reading((byte)i, (short)i, i, i * 3L), (a, b) => a == b); break;
            case "variable struct": await RoundTripAsValueAsync(i => new Label(new string('y', i % 300), i), (a, b) => a == b); break;
            case "string": await RoundTripAsValueAsync(i => new string('s', i % 500), (a, b) => a == b); break;
            case "int": await RoundTripAsValueAsync(i => -i, (a, b) => a == b); break;
            case "long": await RoundTripAsValueAsync(i => long.MinValue + i, (a, b) => a == b); break;
            case "double": await RoundTripAsValueAsync(i => Math.PI * i, (a, b) => a.Equals(b)); break;
            case "Guid": await RoundTripAsValueAsync(i => new Guid(0, (short)i, 0, new byte[8]), (a, b) => a == b); break;
            case "byte[]": await RoundTripAsValueAsync(i => new byte[i % 700], (a, b) => a.AsSpan().SequenceEqual(b)); break;
            default: throw new ArgumentOutOfRangeException(nameof(shape));
        }
    }

    private static async Task RoundTripAsValueAsync<TValue>(Func<int, TValue> value, Func<TValue, TValue, bool> equal)
    {
        const int Count = 2_000;
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, TValue>(TypedStores.LowMemory(temp.Path));
        for (int i = 0; i < Count; i++)
        {
            await store.UpsertAsync(i, value(i));
        }

        var wrong = new List<int>();
        for (int i = 0; i < Count; i++)
        {
            (KeyStatus status, TValue? read) = await store.ReadAsync(i);
            if (status != KeyStatus.Found || !equal(value(i), read!))
            {
                wrong.Add(i);
            }
        }

        Assert.Empty(wrong);
    }
}
