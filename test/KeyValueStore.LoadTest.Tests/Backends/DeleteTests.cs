using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Tests.Support;
using KeyValueStore.LoadTest.Workloads;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Backends;

/// <summary>
/// Every backend deletes (<see cref="ILoadTestBackend.DeleteAsync"/>): true exactly when the key had a value. The redis
/// backend measures the Garnet server the fixture starts.
/// </summary>
public class DeleteTests : IClassFixture<GarnetServerFixture>
{
    private const int ValueSize = 16;

    private readonly GarnetServerFixture _garnet;

    public DeleteTests(GarnetServerFixture garnet)
    {
        _garnet = garnet;
    }

    public static TheoryData<string> Backends => new(BackendCatalog.All.Select(backend => backend.Name));

    [Theory]
    [MemberData(nameof(Backends))]
    public async Task EveryBackend_DeletesAKeyItHas_AndReportsAKeyItHasNot(string name)
    {
        using var temp = new TempDirectory();
        await using ILoadTestBackend backend = BackendCatalog.Find(name)!.Open(Context(temp.Path));
        await backend.UpsertAsync(Records.Key(1), Value(1));
        await backend.UpsertAsync(Records.Key(2), Value(2));

        Assert.True(await backend.DeleteAsync(Records.Key(1)), "key 1 had a value");
        Assert.False(await backend.DeleteAsync(Records.Key(1)), "key 1 was deleted already");
        Assert.False(await backend.DeleteAsync(Records.Key(3)), "key 3 was never written");

        var destination = new byte[ValueSize];
        Assert.Equal(-1, await backend.ReadAsync(Records.Key(1), destination));
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(2), destination));
        Assert.Equal(2, destination[0]);

        // A deleted key can be written again.
        await backend.UpsertAsync(Records.Key(1), Value(5));
        Assert.Equal(ValueSize, await backend.ReadAsync(Records.Key(1), destination));
        Assert.Equal(5, destination[0]);
    }

    private static byte[] Value(byte first)
    {
        var value = new byte[ValueSize];
        value[0] = first;
        return value;
    }

    private BackendContext Context(string directory) => new(directory, Records: 100, ValueSize, LoadTestOptions.DefaultMemorySize, Endpoint: _garnet.Endpoint);
}
