using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>Objects, fixed- and variable-length structs, strings and primitives, each as key and as value.</summary>
public class KeyAndValueTypeTests
{
    public static TheoryData<string> Shapes() => ["object", "fixed struct", "variable struct", "string", "int", "long", "double", "Guid", "byte[]"];

    [Theory]
    [MemberData(nameof(Shapes))]
    public async Task EachShape_AsAKey_FindsItsRecord_AndOnlyIts(string shape)
    {
        switch (shape)
        {
            case "object": await RoundTripAsKeyAsync(Customer.Sample); break;
            case "fixed struct": await RoundTripAsKeyAsync(i => new Reading((byte)i, (short)i, i, i * 1_000_000_007L)); break;
            case "variable struct": await RoundTripAsKeyAsync(i => new Label(new string('x', i % 50) + i, i)); break;
            case "string": await RoundTripAsKeyAsync(i => $"key-{i}"); break;
            case "int": await RoundTripAsKeyAsync(i => i - 100); break;
            case "long": await RoundTripAsKeyAsync(i => long.MaxValue - i); break;
            case "double": await RoundTripAsKeyAsync(i => i / 3.0); break;
            case "Guid": await RoundTripAsKeyAsync(i => new Guid(i, 0, 0, new byte[8])); break;
            case "byte[]": await RoundTripAsKeyAsync(i => BitConverter.GetBytes(i)); break;
            default: throw new ArgumentOutOfRangeException(nameof(shape));
        }
    }

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

    [Fact]
    public async Task ANullValue_IsStored_AndReadsBackAsFoundNull()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, string?>(TypedStores.InMemory(temp.Path));

        await store.UpsertAsync(1, null);

        Assert.Equal(new ReadResult<string?>(KeyStatus.Found, null), await store.ReadAsync(1));
        Assert.Equal(new ReadResult<string?>(KeyStatus.NotFound, null), await store.ReadAsync(2));
    }

    /// <summary>Writes 2,000 keys (enough to spill from 8 KB of memory) and reads each back by an equal but distinct instance.</summary>
    private static async Task RoundTripAsKeyAsync<TKey>(Func<int, TKey> key)
    {
        const int Count = 2_000;
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<TKey, int>(TypedStores.LowMemory(temp.Path));
        for (int i = 0; i < Count; i++)
        {
            await store.UpsertAsync(key(i), i);
        }

        for (int i = 0; i < Count; i++)
        {
            Assert.Equal(new ReadResult<int>(KeyStatus.Found, i), await store.ReadAsync(key(i)));
        }

        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(key(Count))).Status);
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
