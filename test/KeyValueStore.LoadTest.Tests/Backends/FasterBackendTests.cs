using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.LoadTest.Tests.Backends;

/// <summary>The FASTER backends' durable flushes: the store's checkpoints, counted only where the mode takes them.</summary>
public class FasterBackendTests
{
    [Fact]
    public async Task FasterCommit_CountsTheCheckpointsItsWritesWaitFor()
    {
        using var temp = new TempDirectory();
        await using var backend = (FasterBackend)BackendCatalog.Find("faster-commit")!.Open(Context(temp.Path));
        long before = backend.DurableFlushes!.Value;

        // In Commit mode an upsert completes only after a checkpoint that started after it: each awaited one needs one.
        for (byte key = 0; key < 10; key++)
        {
            await backend.UpsertAsync(new[] { key }, new byte[16]);
        }

        long after = backend.DurableFlushes!.Value;
        Assert.True(after > before, $"flushes before {before}, after {after}");
    }

    [Fact]
    public async Task Faster_WithDurabilityNone_CountsNoFlushes()
    {
        using var temp = new TempDirectory();
        await using var backend = (FasterBackend)BackendCatalog.Find("faster")!.Open(Context(temp.Path));

        await backend.UpsertAsync(new byte[] { 1 }, new byte[16]);

        Assert.Null(backend.DurableFlushes);
    }

    private static BackendContext Context(string directory) => new(directory, Records: 100, ValueSize: 16, LoadTestOptions.DefaultMemorySize);
}
