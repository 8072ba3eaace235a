using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Workloads;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Backends;

/// <summary>Every backend deletes (<see cref="ILoadTestBackend.DeleteAsync"/>): true exactly when the key had a value.</summary>
public class DeleteTests
{
    private const int ValueSize = 16;

    public static TheoryData<string> Backends => new(BackendCatalog.All.Select(backend => backend.Name));

    [Theory]
    [MemberData(nameof(Backends))]
    public async Task EveryBackend_DeletesAKeyItHas_AndReportsAKeyItHasNot(string name)
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        await backend.UpsertAsync(Key(1), Value(1));
        await backend.UpsertAsync(Key(2), Value(2));

        Assert.True(await backend.DeleteAsync(Key(1)), "key 1 had a value");
        Assert.False(await backend.DeleteAsync(Key(1)), "key 1 was deleted already");
        Assert.False(await backend.DeleteAsync(Key(3)), "key 3 was never written");

        var destination = new byte[ValueSize];
        Assert.Equal(-1, await backend.ReadAsync(Key(1), destination));
        Assert.Equal(ValueSize, await backend.ReadAsync(Key(2), destination));
        Assert.Equal(2, destination[0]);

        // A deleted key can be written again.
        await backend.UpsertAsync(Key(1), Value(5));
        Assert.Equal(ValueSize, await backend.ReadAsync(Key(1), destination));
        Assert.Equal(5, destination[0]);
    }

    private static byte[] Key(long id)
    {
        var key = new byte[RecordCodec.KeySize];
        RecordCodec.WriteKey(key, id);
        return key;
    }

    private static byte[] Value(byte first)
    {
        var value = new byte[ValueSize];
        value[0] = first;
        return value;
    }

    private static BackendContext Context(string directory) => new(directory, Records: 100, ValueSize, LoadTestOptions.DefaultMemorySize);
}
