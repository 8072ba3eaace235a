using System;
using System.Numerics;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// The LLFIO key-value store's benchmark, shared by its plain and durable variants: insert every record once, one
/// after another; then fetch every record once, in key order, on one thread or split between two. One value is
/// written under every key. The FASTER stores get log memory for twice the data, so the whole set stays in memory as
/// it does in LLFIO's (memory-mapped) store.
/// </summary>
public abstract class LlfioWorkload
{
    private byte[] _value = [];
    private BenchStore? _store;

    /// <summary>Gets or sets the value's size: 16 bytes or 1 KB, LLFIO's two.</summary>
    [BenchmarkDotNet.Attributes.Params(16, 1024)]
    public int ValueSize { get; set; }

    /// <summary>Gets the catalog name of the store under test.</summary>
    // The derived classes declare the benchmarks (their OperationsPerInvoke must be constants of their own); every
    // derived class opens and closes its store the same way, so the setups live here, naming the benchmarks by name.
    [IterationSetup(Target = "Inserts")]
    public void OpenForInserts() => OpenEmpty();

    [IterationCleanup(Target = "Inserts")]
    public void CloseAfterInserts() => Close();

    [GlobalSetup(Targets = ["Fetch1Thread", "Fetch2Threads"])]
    public void OpenForFetches() => OpenLoaded();

    [GlobalCleanup(Targets = ["Fetch1Thread", "Fetch2Threads"])]
    public void CloseAfterFetches() => Close();

    protected abstract string StoreName { get; }

    /// <summary>Gets how many records the run inserts and fetches.</summary>
    protected abstract int Records { get; }

    /// <summary>Opens an empty store.</summary>
    protected void OpenEmpty()
    {
        _value = Values.Incompressible(ValueSize);
        long logMemory = (long)BitOperations.RoundUpToPowerOf2((ulong)Math.Max(1L << 20, 2L * Records * (ValueSize + 64)));
        _store = BenchStore.Open(StoreName, Records, ValueSize, logMemory);
    }

    /// <summary>Opens a store holding every record.</summary>
    protected void OpenLoaded()
    {
        OpenEmpty();
        _store!.FillAsync(Records, _value).GetAwaiter().GetResult();
    }

    /// <summary>Closes the store and deletes its files.</summary>
    protected void Close()
    {
        _store?.DisposeAsync().AsTask().GetAwaiter().GetResult();
        _store = null;
    }

    /// <summary>Inserts ids 0 .. Records - 1, each awaited before the next.</summary>
    protected Task InsertAll() => _store!.InsertOneByOneAsync(Records, _value);

    /// <summary>Fetches every record once, ids split into <paramref name="threads"/> contiguous ranges read in parallel.</summary>
    protected async Task<long> FetchAll(int threads)
    {
        var workers = new Task<long>[threads];
        int share = Records / threads;
        for (int t = 0; t < threads; t++)
        {
            int first = t * share;
            int end = t == threads - 1 ? Records : first + share;
            workers[t] = Task.Run(() => Fetch(first, end));
        }

        long total = 0;
        foreach (Task<long> worker in workers)
        {
            total += await worker.ConfigureAwait(false);
        }

        return total;
    }

    private async Task<long> Fetch(int first, int end)
    {
        byte[] key = new byte[RecordCodec.KeySize];
        byte[] destination = new byte[ValueSize];
        long bytes = 0;
        for (int id = first; id < end; id++)
        {
            RecordCodec.WriteKey(key, id);
            int length = await _store!.Backend.ReadAsync(key, destination).ConfigureAwait(false);
            bytes += length >= 0 ? length : throw new InvalidOperationException($"{StoreName} lost key {id}.");
        }

        return bytes;
    }
}
