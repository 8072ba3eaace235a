using System;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// One store of the comparison, opened through the load test's adapter by its catalog name, in a fresh temporary
/// directory that disposal deletes. Keys are the load test's (a record id as 8 big-endian bytes).
/// </summary>
internal sealed class BenchStore : IAsyncDisposable
{
    private readonly string _directory;

    private BenchStore(string directory, ILoadTestBackend backend)
    {
        _directory = directory;
        Backend = backend;
    }

    /// <summary>Gets the store's adapter.</summary>
    public ILoadTestBackend Backend { get; }

    /// <summary>Opens the named store sized for <paramref name="records"/> values of <paramref name="valueSize"/> bytes.</summary>
    /// <param name="name">A <see cref="BackendCatalog"/> name.</param>
    /// <param name="records">How many records it will hold (sizes FASTER's index).</param>
    /// <param name="valueSize">Bytes per value (sizes FASTER's pages).</param>
    /// <param name="memoryBytes">FASTER's log memory; stores that do not take a memory size ignore it.</param>
    public static BenchStore Open(string name, long records, int valueSize, long memoryBytes)
    {
        BackendDescriptor descriptor = BackendCatalog.Find(name) ?? throw new ArgumentException($"The load test has no backend '{name}'.", nameof(name));
        string directory = Path.Combine(Path.GetTempPath(), "kvstore-bench-peers", $"{name}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        return new BenchStore(directory, descriptor.Open(new BackendContext(directory, records, valueSize, memoryBytes)));
    }

    /// <summary>
    /// Setup, not measured: writes <paramref name="value"/> under ids 0 .. <paramref name="records"/> - 1 as fast as
    /// the store allows, in atomic batches of 1,000 when its adapter writes batches (LiteDB commits each
    /// single write as its own transaction, about 1,000 a second here, so loading it one write at a time would take most of the run), else one at a time.
    /// </summary>
    public async Task FillAsync(long records, byte[] value) => await FillAsync(records, _ => value).ConfigureAwait(false);

    /// <summary>Setup, not measured: as <see cref="FillAsync(long, byte[])"/>, the value of each id from <paramref name="valueOf"/>.</summary>
    public async Task FillAsync(long records, Func<long, ReadOnlyMemory<byte>> valueOf)
    {
        if (Backend is not IBatchWriter writer)
        {
            byte[] key = new byte[RecordCodec.KeySize];
            for (long id = 0; id < records; id++)
            {
                RecordCodec.WriteKey(key, id);
                await Backend.UpsertAsync(key, valueOf(id)).ConfigureAwait(false);
            }

            return;
        }

        const int BatchSize = 1_000;
        var batch = new List<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)>(BatchSize);
        for (long first = 0; first < records; first += BatchSize)
        {
            batch.Clear();
            for (long id = first; id < Math.Min(records, first + BatchSize); id++)
            {
                byte[] key = new byte[RecordCodec.KeySize];
                RecordCodec.WriteKey(key, id);
                batch.Add((key, valueOf(id)));
            }

            await writer.WriteBatchAsync(batch).ConfigureAwait(false);
        }
    }

    /// <summary>Writes <paramref name="value"/> under ids 0 .. <paramref name="records"/> - 1, in order, one at a time, each awaited (the measured insert).</summary>
    public async Task InsertOneByOneAsync(long records, byte[] value)
    {
        byte[] key = new byte[RecordCodec.KeySize];
        for (long id = 0; id < records; id++)
        {
            RecordCodec.WriteKey(key, id);
            await Backend.UpsertAsync(key, value).ConfigureAwait(false);
        }
    }

    /// <summary>Closes the store and deletes its files.</summary>
    public async ValueTask DisposeAsync()
    {
        await Backend.DisposeAsync().ConfigureAwait(false);
        if (Directory.Exists(_directory))
        {
            Directory.Delete(_directory, recursive: true);
        }
    }
}
