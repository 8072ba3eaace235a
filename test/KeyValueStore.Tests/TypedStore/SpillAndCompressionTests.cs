using System;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>The typed store on a log much larger than its memory, delete status by where a record lives, and value compression.</summary>
public class SpillAndCompressionTests
{
    [Fact]
    public async Task AStoreWith4KBPagesAnd8KBOfMemory_Holds100000Records_AndReadsEachBackFromDisk()
    {
        const int Records = 100_000;
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, Customer>(TypedStores.LowMemory(temp.Path));
        for (int i = 0; i < Records; i++)
        {
            await store.UpsertAsync(i, Customer.Sample(i));
        }

        long inMemoryFrom = store.FasterKV.Log.HeadAddress;
        Assert.True(store.FasterKV.Log.TailAddress - inMemoryFrom <= 8 * 1024, "at most 8 KB of the log is in memory");
        Assert.True(Directory.GetFiles(temp.Path, "store.log.*").Sum(file => new FileInfo(file).Length) > 4_000_000, "the records were written to segment files");

        var mismatches = new System.Collections.Generic.List<int>();
        for (int i = 0; i < Records; i++)
        {
            if (!Customer.Sample(i).Equals((await store.ReadAsync(i)).Value))
            {
                mismatches.Add(i);
            }
        }

        Assert.Empty(mismatches);
    }

    [Fact]
    public async Task Delete_ReportsFound_ForKeysInMemoryAndOnDisk_AndNotFound_ForAbsentOrDeletedKeys()
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, string>(TypedStores.LowMemory(temp.Path));
        for (int i = 0; i < 5_000; i++)
        {
            await store.UpsertAsync(i, $"value-{i}");
        }

        Assert.True(store.FasterKV.Log.HeadAddress > 0, "the first records were evicted to disk");
        int onDisk = 0;
        int inMemory = 4_999;

        Assert.Equal(KeyStatus.Found, await store.DeleteAsync(onDisk));
        Assert.Equal(KeyStatus.Found, await store.DeleteAsync(inMemory));
        Assert.Equal(KeyStatus.NotFound, await store.DeleteAsync(5_000));
        Assert.Equal(KeyStatus.NotFound, await store.DeleteAsync(onDisk));
        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(onDisk)).Status);
        Assert.Equal(KeyStatus.NotFound, (await store.ReadAsync(inMemory)).Status);
        Assert.Equal("value-1", (await store.ReadAsync(1)).Value);
    }

    [Fact]
    public async Task Compressible64KBValues_TakeFarFewerLogBytes_ThanIncompressibleOnes_AndAllReadBackExactly()
    {
        const int Values = 64;
        const int Size = 64 * 1024;
        var random = new Random(7);
        byte[][] incompressible = Enumerable.Range(0, Values).Select(_ => RandomBytes(random, Size)).ToArray();
        byte[][] compressible = Enumerable.Range(0, Values).Select(i => Enumerable.Range(0, Size).Select(b => (byte)((b / 512) + i)).ToArray()).ToArray();

        (long incompressibleBytes, bool incompressibleExact) = await LogBytesOfAsync(incompressible);
        (long compressibleBytes, bool compressibleExact) = await LogBytesOfAsync(compressible);

        Assert.True(incompressibleExact, "every incompressible value reads back exactly");
        Assert.True(compressibleExact, "every compressible value reads back exactly");
        Assert.True(incompressibleBytes >= Values * Size, $"incompressible values are stored whole ({incompressibleBytes} log bytes)");
        Assert.True(compressibleBytes * 10 < incompressibleBytes, $"compressible values took {compressibleBytes} log bytes against {incompressibleBytes}");
    }

    [Fact]
    public async Task CompressibleValuesAfterARunOfIncompressibleOnes_AreCompressedAgain_AndEveryValueReadsBackExactly_FromDisk()
    {
        // Eight writers at once on a store of 8 KB of memory: 400 random values (64 in a row suffice) back compression
        // off, then 800 that compress well must turn it on again, some stored plain before one is tried. Most are read
        // from the files.
        const int Writers = 8;
        const int Size = 2_000;
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, byte[]>(TypedStores.LowMemory(temp.Path));
        byte[][] incompressible = Enumerable.Range(0, Writers * 50).Select(i => RandomBytes(new Random(i), Size)).ToArray();
        byte[][] compressible = Enumerable.Range(0, Writers * 100).Select(i => Marked(new byte[Size], i)).ToArray();

        await WriteConcurrentlyAsync(store, incompressible, firstKey: 0, Writers);
        long before = store.FasterKV.Log.TailAddress;
        await WriteConcurrentlyAsync(store, compressible, firstKey: incompressible.Length, Writers);
        long compressibleLogBytes = store.FasterKV.Log.TailAddress - before;

        // Stored plain, they would take at least 800 x 2,000 bytes; a few dozen stored plain before one is tried is the
        // expected cost, half of them would take odds of about 1 in 10^11 with one value in sixteen tried.
        Assert.True(compressibleLogBytes < compressible.Length * Size / 2, $"the compressible values took {compressibleLogBytes} log bytes");
        for (int i = 0; i < incompressible.Length; i++)
        {
            Assert.Equal(incompressible[i], (await store.ReadAsync(i)).Value);
        }

        for (int i = 0; i < compressible.Length; i++)
        {
            Assert.Equal(compressible[i], (await store.ReadAsync(incompressible.Length + i)).Value);
        }
    }

    [Fact]
    public async Task WithCompressionOff_CompressibleValuesAreStoredWhole()
    {
        const int Size = 64 * 1024;
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = TypedStores.InMemory(temp.Path);
        options.ValueCompressionThresholdBytes = -1;
        await using var store = TypedStores.Open<int, byte[]>(options);
        long before = store.FasterKV.Log.TailAddress;

        await store.UpsertAsync(1, new byte[Size]);

        Assert.True(store.FasterKV.Log.TailAddress - before >= Size);
        Assert.Equal(new byte[Size], (await store.ReadAsync(1)).Value);
    }

    private static async Task<(long LogBytes, bool AllExact)> LogBytesOfAsync(byte[][] values)
    {
        using var temp = new TempDirectory();
        await using var store = TypedStores.Open<int, byte[]>(TypedStores.InMemory(temp.Path));
        long before = store.FasterKV.Log.TailAddress;
        for (int i = 0; i < values.Length; i++)
        {
            await store.UpsertAsync(i, values[i]);
        }

        long logBytes = store.FasterKV.Log.TailAddress - before;
        bool exact = true;
        for (int i = 0; i < values.Length; i++)
        {
            byte[]? read = (await store.ReadAsync(i)).Value;
            exact &= read is not null && values[i].AsSpan().SequenceEqual(read);
        }

        return (logBytes, exact);
    }

    private static async Task WriteConcurrentlyAsync(MixedStorageKVStore<int, byte[]> store, byte[][] values, int firstKey, int writers) =>
        await Task.WhenAll(Enumerable.Range(0, writers).Select(writer => Task.Run(async () =>
        {
            for (int i = writer; i < values.Length; i += writers)
            {
                await store.UpsertAsync(firstKey + i, values[i]);
            }
        })));

    private static byte[] Marked(byte[] value, int marker)
    {
        BitConverter.TryWriteBytes(value, marker);
        return value;
    }

    private static byte[] RandomBytes(Random random, int size)
    {
        var bytes = new byte[size];
        random.NextBytes(bytes);
        return bytes;
    }
}
