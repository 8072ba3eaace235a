using System;
using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.Conformance;

/// <summary>Objects, fixed- and variable-length structs, strings, primitives and byte arrays, as keys and as values.</summary>
public abstract partial class StoreConformanceTests
{
    private const int RecordsPerShape = 200;

    [Theory]
    [MemberData(nameof(Shapes.Names), MemberType = typeof(Shapes))]
    public Task EachShape_AsAKey_FindsItsRecord_AndOnlyIts(string shape) => Shapes.AsKeysAsync(shape, new KeyRoundTrip(this));

    [Theory]
    [MemberData(nameof(Shapes.Names), MemberType = typeof(Shapes))]
    public Task EachShape_AsAValue_ReadsBackEqual(string shape) => Shapes.AsValuesAsync(shape, new ValueRoundTrip(this));

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

    /// <summary>Records under keys of one shape, in a store of this class, each found again and nothing else.</summary>
    private sealed class KeyRoundTrip(StoreConformanceTests tests) : Shapes.IKeyRoundTrip
    {
        public async Task RunAsync<TKey>(Func<int, TKey> keyOf)
        {
            await using IMixedStorageKVStore<TKey, int> store = await tests.OpenAsync<TKey, int>();
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
    }

    /// <summary>Values of one shape, in a store of this class, each read back equal.</summary>
    private sealed class ValueRoundTrip(StoreConformanceTests tests) : Shapes.IValueRoundTrip
    {
        public async Task RunAsync<TValue>(Func<int, TValue> valueOf, Func<TValue, TValue, bool> equal)
        {
            await using IMixedStorageKVStore<int, TValue> store = await tests.OpenAsync<int, TValue>();
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
}
