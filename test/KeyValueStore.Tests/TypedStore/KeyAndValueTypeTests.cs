using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>Each shape of value read back from disk; the shapes as keys and in memory are in the conformance suite (StoreConformanceTests.Types).</summary>
public class KeyAndValueTypeTests
{
    [Theory]
    [MemberData(nameof(Shapes.Names), MemberType = typeof(Shapes))]
    public Task EachShape_AsAValue_ReadsBackEqual_FromDisk(string shape) => Shapes.AsValuesAsync(shape, new FromDisk());

    /// <summary>2,000 values in a store of 8 KB of memory: almost all of them are read back from its segment files.</summary>
    private sealed class FromDisk : Shapes.IValueRoundTrip
    {
        public async Task RunAsync<TValue>(Func<int, TValue> valueOf, Func<TValue, TValue, bool> equal)
        {
            const int Count = 2_000;
            using var temp = new TempDirectory();
            await using var store = TypedStores.Open<int, TValue>(TypedStores.LowMemory(temp.Path));
            for (int i = 0; i < Count; i++)
            {
                await store.UpsertAsync(i, valueOf(i));
            }

            var wrong = new List<int>();
            for (int i = 0; i < Count; i++)
            {
                (KeyStatus status, TValue? read) = await store.ReadAsync(i);
                if (status != KeyStatus.Found || !equal(valueOf(i), read!))
                {
                    wrong.Add(i);
                }
            }

            Assert.Empty(wrong);
        }
    }
}
