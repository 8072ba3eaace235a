using System;
using System.Buffers.Binary;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Benchmarks.Compaction;

/// <summary>
/// The overwrite-heavy workload compaction exists for: a fixed set of keys, each overwritten round
/// after round, so the live data stays constant while the log grows by one copy of it per round.
/// </summary>
internal sealed class OverwriteWorkload : IAsyncDisposable
{
    private readonly byte[][] _keys;
    private readonly byte[][] _values;

    public OverwriteWorkload(int keyCount, int valueSize, MixedStorageKVStoreOptions options)
    {
        Directory = Path.Combine(Path.GetTempPath(), "kvstore-bench", Guid.NewGuid().ToString("N"));
        options.LogDirectory = Directory;
        options.LogFileNamePrefix = "bench";
        Store = StoreOpener.Open(StoreSettingsValidator.Validate(options), NullLogger.Instance);
        _keys = Enumerable.Range(0, keyCount).Select(i => BitConverter.GetBytes(i)).ToArray();

        // One value buffer per key, rewritten each round: the workload allocates nothing per upsert itself.
        _values = Enumerable.Range(0, keyCount).Select(_ => new byte[valueSize]).ToArray();
    }

    public string Directory { get; }

    public FasterRecordStore Store { get; }

    public int KeyCount => _keys.Length;

    /// <summary>Bytes of live data: one key and one value per key.</summary>
    public long LiveBytes => (long)_keys.Length * (sizeof(int) + _values[0].Length);

    /// <summary>Overwrites every key once, all upserts in flight at once.</summary>
    public Task RunRoundAsync(int round)
    {
        var upserts = new Task[_keys.Length];
        for (int i = 0; i < _keys.Length; i++)
        {
            BinaryPrimitives.WriteInt32LittleEndian(_values[i], round);
            upserts[i] = Store.UpsertAsync(_keys[i], _values[i]).AsTask();
        }

        return Task.WhenAll(upserts);
    }

    /// <summary>Bytes of every file in the store's directory.</summary>
    public long DiskBytes() =>
        System.IO.Directory.Exists(Directory)
            ? new DirectoryInfo(Directory).EnumerateFiles().Sum(file => { try { return file.Length; } catch (FileNotFoundException) { return 0; } })
            : 0;

    public async ValueTask DisposeAsync()
    {
        await Store.DisposeAsync().ConfigureAwait(false);
        try
        {
            System.IO.Directory.Delete(Directory, recursive: true);
        }
        catch (DirectoryNotFoundException)
        {
        }
    }
}
