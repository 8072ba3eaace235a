using System;
using System.Collections.Generic;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// One batch of the batch writer, rebuilt by the checker from its <c>BB</c> line: entry <c>i</c> writes the batch
/// writer's key number <c>(First + i) mod OwnedKeys</c> at version <c>FirstVersion + i</c>, or deletes it when that
/// version is a multiple of 8.
/// </summary>
/// <remarks>A batch longer than <see cref="OwnedKeys"/> writes some keys more than once; the last write of a key wins.</remarks>
internal readonly record struct BatchPlan(long Id, int First, int Count, long FirstVersion)
{
    /// <summary>The most entries a batch has: 65,535, so batches reach the write-ahead log's large-entry path.</summary>
    public const int MaxEntries = 65_535;

    /// <summary>How many keys the batch writer owns.</summary>
    public const int OwnedKeys = CrashStore.KeyCount / CrashStore.KeyOwners;

    /// <summary>Every entry, in order; <c>Version</c> is -1 for a delete.</summary>
    public IEnumerable<(int Key, long Version)> Entries()
    {
        for (int index = 0; index < Count; index++)
        {
            yield return Entry(index);
        }
    }

    /// <summary>The last entry of each key the batch writes: what the batch leaves, all of it or none.</summary>
    public IEnumerable<(int Key, long Version)> Outcome()
    {
        for (int index = Math.Max(0, Count - OwnedKeys); index < Count; index++)
        {
            yield return Entry(index);
        }
    }

    /// <summary>
    /// The versions of <paramref name="key"/> the batch writes before its last write of it (-1 for a delete): states a
    /// whole batch never leaves, so a key recovered in one of them means the batch was recovered in part.
    /// </summary>
    public IEnumerable<long> EarlierVersionsOf(int key)
    {
        if (key % CrashStore.KeyOwners != CrashStore.BatchOwner)
        {
            yield break;
        }

        int owned = key / CrashStore.KeyOwners;
        for (int index = (((owned - First) % OwnedKeys) + OwnedKeys) % OwnedKeys; index < Count - OwnedKeys; index += OwnedKeys)
        {
            yield return Entry(index).Version;
        }
    }

    private (int Key, long Version) Entry(int index)
    {
        int key = (((First + index) % OwnedKeys) * CrashStore.KeyOwners) + CrashStore.BatchOwner;
        long version = FirstVersion + index;
        return (key, version % 8 == 0 ? -1 : version);
    }
}
