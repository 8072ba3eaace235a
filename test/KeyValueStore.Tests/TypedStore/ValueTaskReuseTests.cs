using System;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>
/// An operation that waited completes through a pooled state machine the next operation reuses
/// (<c>PoolingAsyncValueTaskMethodBuilder</c>). Its <see cref="ValueTask"/> awaited a second time must throw, never
/// hand back the result of the operation that reused it.
/// </summary>
public class ValueTaskReuseTests
{
    [Fact]
    public async Task ADeleteThatWaitedForItsCommit_AwaitedTwice_Throws_RatherThanReturningAnotherDeletesStatus()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, string>(TypedStores.Durable(temp.Path, DurabilityMode.Commit));

        // A Commit-mode delete waits for the group commit that holds it, so it almost never completes at once; when the
        // commit thread was quicker than this one (a busy machine), another key is tried.
        ValueTask<KeyStatus> first = default;
        bool waited = false;
        for (int key = 1; key <= 20 && !waited; key++)
        {
            await store.UpsertAsync(key, "one");
            first = store.DeleteAsync(key);
            waited = !first.IsCompleted;
            if (!waited)
            {
                await first;
            }
        }

        Assert.True(waited, "20 deletes completed at once, so none went through a pooled state machine");
        Assert.Equal(KeyStatus.Found, await first);
        Assert.Equal(KeyStatus.NotFound, await store.DeleteAsync(-1));

        await Assert.ThrowsAsync<InvalidOperationException>(async () => await first);
    }
}
