using System;
using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.Conformance;

/// <summary>Objects, fixed- and variable-length structs, strings, primitives and byte arrays, as keys and as values.</summary>
public abstract partial class StoreConformanceTests
{
    private const int RecordsPerShape = 200;

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
    public async Task EachShape_AsAValue_ReadsBackEqual(string shape)
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
    public async Task CompressibleAndIncompressibleValues_OfManySizes_ReadBackExactly()
    {
        await using IMixedStorageKVStore<int, byte[]> store = await OpenAsync<int, byte[]>();
        var random = new Random(7);
        int[] sizes = [0, 1, 1023, 1024, 4096, 65_536, 200_000];
        for (int i = 0; i < sizes.Length; i++)
        {
            byte[] incompressible = new byte[sizes[i]];
            random.NextBytes(incompressible);
            byte[] compressible = Enumerable.Range(0, sizes[i]).Select(b => (byte)(b % 7)).ToArray();
            await store.UpsertAsync(i, incompressible);
            await store.UpsertAsync(-1 - i, compressible);

            Assert.Equal(incompressible, (await store.ReadAsync(i)).Value);
            Assert.Equal(compressible, (await store.ReadAsync(-1 - i)).Value);
        }
    }

    [Fact]
    public async Task AMutableKey_ChangedAfterTheUpsert_NoLongerFindsItsRecord()
    {
        await using IMixedStorageKVStore<MutableKey, string> store = await OpenAsync<MutableKey, string>();
        var key = new MutableKey { Name = "a", Number = 1 };
        await store.UpsertAsync(key, "value");

        key.Number = 2;

        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(key)).Status);
        Assert.Equal("value", (await store.ReadAsync(new MutableKey { Name = "a", Number = 1 })).Value);
    }

    private async Task RoundTripAsKeyAsync<TKey>(Func<int, TKey> keyOf)
    {
        await using IMixedStorageKVStore<TKey, int> store = await OpenAsync<TKey, int>();
        for (int i = 0; i < RecordsPerShape; i++)
        {
            await store.UpsertAsync(keyOf(i), i);
        }

        for (int i = 0; i < RecordsPerShape; i++)
        {
            Assert.Equal(new ReadResult<int>(KeyStatus.Found, i), await store.ReadAsync(keyOf(i)));
        }

        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(keyOf(RecordsPerShape))).Status);
    }

    private async Task RoundTripAsValueAsync<TValue>(Func<int, TValue> valueOf, Func<TValue, TValue, bool> equal)
    {
        await using IMixedStorageKVStore<int, TValue> store = await OpenAsync<int, TValue>();
        for (int i = 0; i < RecordsPerShape; i++)
        {
            await store.UpsertAsync(i, valueOf(i));
        }

        for (int i = 0; i < RecordsPerShape; i++)
        {
            ReadResult<TValue> read = await store.ReadAsync(i);
            Assert.True(read.Found && equal(valueOf(i), read.Value!), $"record {i} read back as {read}");
        }
    }
}
