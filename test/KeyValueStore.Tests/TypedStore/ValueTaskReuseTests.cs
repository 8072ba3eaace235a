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
        await store.UpsertAsync(1, "one");

        // A Commit-mode delete waits for the group commit that holds it, so it cannot complete at once.
        ValueTask<KeyStatus> first = store.DeleteAsync(1);
        Assert.False(first.IsCompleted, "the delete completed at once, so it went through no pooled state machine");
        Assert.Equal(KeyStatus.Found, await first);
        Assert.Equal(KeyStatus.NotFound, await store.DeleteAsync(2));

        await Assert.ThrowsAsync<InvalidOperationException>(async () => await first);
    }
}
