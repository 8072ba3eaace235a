using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Tests.Concurrency;

public class CoreLocalSlotsTests
{
    private sealed class Item;

    [Fact]
    public void AnObjectParkedOnOneProcessor_IsTakenLocallyThere_NotFromAnother_ButFromAnywhere()
    {
        int processor = 0;
        var slots = new CoreLocalSlots<Item>(2, () => processor);
        var item = new Item();

        Assert.True(slots.TryParkLocal(item) >= 0);

        processor = 1;
        Assert.False(slots.TryTakeLocal(out _));
        Assert.True(slots.TryTakeAny(out Item? stolen));
        Assert.Same(item, stolen);
        Assert.False(slots.TryTakeAny(out _));
    }

    [Fact]
    public void AProcessorsSlotsFull_RefuseAnotherObject_AndProcessorNumbersBeyondTheGroupsShareOne()
    {
        int processor = 5;
        var slots = new CoreLocalSlots<Item>(2, () => processor);
        var parked = Enumerable.Range(0, CoreLocalSlots<Item>.SlotsPerGroup).Select(_ => new Item()).ToList();
        Assert.All(parked, item => Assert.True(slots.TryParkLocal(item) >= 0));

        Assert.Equal(-1, slots.TryParkLocal(new Item()));

        processor = 1; // 5 and 1 share the second of two groups.
        var taken = new List<Item>();
        while (slots.TryTakeLocal(out Item? item))
        {
            taken.Add(item);
        }

        Assert.Equal(parked.ToHashSet(), taken.ToHashSet());
    }

    [Fact]
    public void TakeAt_ReturnsWhatIsParkedInTheSlot_OnceOnly()
    {
        var slots = new CoreLocalSlots<Item>(1, () => 0);
        var item = new Item();
        int slot = slots.TryParkLocal(item);

        Assert.Same(item, slots.TakeAt(slot));
        Assert.Null(slots.TakeAt(slot));
    }

    [Fact]
    public async Task ManyThreadsParkingAndTaking_NeverHandOneObjectToTwo_NorLoseOne()
    {
        const int Objects = 6;
        var slots = new CoreLocalSlots<Item>(4, () => Thread.CurrentThread.ManagedThreadId % 8);
        var pool = new System.Collections.Concurrent.ConcurrentBag<Item>(Enumerable.Range(0, Objects).Select(_ => new Item()));
        var inUse = new System.Collections.Concurrent.ConcurrentDictionary<Item, bool>();
        using var start = new Barrier(4);

        await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(() =>
        {
            start.SignalAndWait();
            for (int i = 0; i < 50_000; i++)
            {
                if (!slots.TryTakeLocal(out Item? item) && !slots.TryTakeAny(out item) && !pool.TryTake(out item))
                {
                    continue;
                }

                Assert.True(inUse.TryAdd(item, true), "an object was handed to two callers at once");
                inUse.TryRemove(item, out bool _);
                if (slots.TryParkLocal(item) < 0)
                {
                    pool.Add(item);
                }
            }
        })));

        int parked = 0;
        while (slots.TryTakeAny(out _))
        {
            parked++;
        }

        Assert.Equal(Objects, parked + pool.Count);
    }
}
