using KeyValueStore.CrashHarness;

namespace KeyValueStore.Tests.Durability;

/// <summary>
/// The crash checker's model of the batch writer's batches: which states a whole batch leaves, and which writes of a
/// key a batch replaces itself (so that a key recovered in one of those says the batch was recovered in part).
/// </summary>
public class BatchPlanTests
{
    private static int KeyOf(int owned) => (owned * CrashStore.KeyOwners) + CrashStore.BatchOwner;

    [Fact]
    public void ABatchLongerThanTheKeysItOwns_ReplacesItsFirstWritesOfTheKeysItWritesAgain()
    {
        var plan = new BatchPlan(Id: 1, First: 5, Count: BatchPlan.OwnedKeys + 3, FirstVersion: 1_001);

        // Entries 0 to 2 write owned keys 5, 6 and 7; entries OwnedKeys to OwnedKeys + 2 write them again.
        Assert.Equal([1_001], plan.EarlierVersionsOf(KeyOf(5)));
        Assert.Equal([1_003], plan.EarlierVersionsOf(KeyOf(7)));
        Assert.Empty(plan.EarlierVersionsOf(KeyOf(8)));
        Assert.Contains((KeyOf(5), 1_001L + BatchPlan.OwnedKeys), plan.Outcome());
        Assert.DoesNotContain(plan.Outcome(), entry => entry.Key == KeyOf(5) && entry.Version == 1_001);
    }

    [Fact]
    public void ABatchThatWrapsAroundTheOwnedKeys_FindsTheKeysEarlierWritesFromTheStart()
    {
        var plan = new BatchPlan(Id: 2, First: BatchPlan.OwnedKeys - 1, Count: (2 * BatchPlan.OwnedKeys) + 1, FirstVersion: 10);

        // Owned key OwnedKeys - 1 is entries 0, OwnedKeys and 2 * OwnedKeys: the first two replaced. Owned key 0 is
        // entries 1 and OwnedKeys + 1: the first replaced.
        Assert.Equal([10, 10 + BatchPlan.OwnedKeys], plan.EarlierVersionsOf(KeyOf(BatchPlan.OwnedKeys - 1)));
        Assert.Equal([11], plan.EarlierVersionsOf(KeyOf(0)));
        Assert.Empty(plan.EarlierVersionsOf(3 * CrashStore.KeyOwners));
    }
}
