using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.Conformance;

/// <summary>Many callers at once, each seeing every step of its own keys.</summary>
public abstract partial class StoreConformanceTests
{
    [Fact]
    public async Task ConcurrentCallers_EachUpsertingReadingUpdatingAndDeletingTheirOwnKeys_SeeEveryStep()
    {
        await using IMixedStorageKVStore<int, string> store = await OpenAsync<int, string>();
        const int Workers = 16;
        const int KeysEach = 250;

        await Task.WhenAll(Enumerable.Range(0, Workers).Select(worker => Task.Run(async () =>
        {
            for (int i = 0; i < KeysEach; i++)
            {
                int key = (worker * KeysEach) + i;
                await store.UpsertAsync(key, $"v1-{key}");
                Assert.Equal($"v1-{key}", (await store.ReadAsync(key)).Value);
                await store.UpsertAsync(key, $"v2-{key}");
                Assert.Equal($"v2-{key}", (await store.ReadAsync(key)).Value);
                if (key % 3 == 0)
                {
                    Assert.Equal(KeyStatus.Found, await store.DeleteAsync(key));
                    Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(key)).Status);
                }
            }
        })));

        for (int key = 0; key < Workers * KeysEach; key++)
        {
            ReadResult<string> read = await store.ReadAsync(key);
            Assert.Equal(key % 3 == 0 ? default : new ReadResult<string>(KeyStatus.Found, $"v2-{key}"), read);
        }
    }
}
