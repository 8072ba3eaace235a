using System;
using System.Collections.Concurrent;
using System.IO;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Benchmarks.HotPath;

/// <summary>
/// What the hot-path benchmarks compare, opened side by side in one temporary directory: raw FASTER
/// (<see cref="RawFasterStore"/>, sized as the engine), the engine, the typed store and a dictionary; and the keys
/// 0 to <c>keys - 1</c> as 8-byte arrays with one value of random bytes, all pinned for good, since
/// <c>SpanByte.FromFixedSpan</c> points FASTER at them without a fixed block.
/// </summary>
internal sealed class HotPathStores
{
    private readonly string _directory;

    private HotPathStores(string directory, int keys, int valueSize)
    {
        _directory = directory;
        Value = GC.AllocateArray<byte>(valueSize, pinned: true);
        Random.Shared.NextBytes(Value);
        KeyBytes = new byte[keys][];
        for (int key = 0; key < keys; key++)
        {
            KeyBytes[key] = GC.AllocateArray<byte>(sizeof(long), pinned: true);
            BitConverter.TryWriteBytes(KeyBytes[key], (long)key);
        }
    }

    /// <summary>Gets each key's bytes: the little-endian <c>long</c> of its number.</summary>
    public byte[][] KeyBytes { get; }

    /// <summary>Gets the value every store is given.</summary>
    public byte[] Value { get; }

    public RawFasterStore? Raw { get; private set; }

    public FasterRecordStore? Engine { get; private set; }

    public MixedStorageKVStore<long, byte[]>? Typed { get; private set; }

    public ConcurrentDictionary<long, byte[]> Dictionary { get; } = new();

    /// <summary>Opens the stores empty, each with <see cref="InMemoryBenchmarkStores.Options"/> changed by <paramref name="configure"/>.</summary>
    /// <param name="name">The benchmark's name, for its directory under the temporary one.</param>
    /// <param name="keys">How many keys (<see cref="KeyBytes"/>).</param>
    /// <param name="valueSize">The value's length in bytes.</param>
    /// <param name="configure">Changes every store's options (raw FASTER takes the engine's sizes), or null.</param>
    public static HotPathStores Open(string name, int keys, int valueSize, Action<MixedStorageKVStoreOptions>? configure = null)
    {
        string directory = Path.Combine(Path.GetTempPath(), name, Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(directory);
        var stores = new HotPathStores(directory, keys, valueSize);
        try
        {
            MixedStorageKVStoreOptions engineOptions = Options(directory, "engine", configure);
            stores.Raw = new RawFasterStore(engineOptions, Path.Combine(directory, "raw.log"));
            stores.Engine = StoreOpener.Open(StoreSettingsValidator.Validate(engineOptions), NullLogger.Instance);
            stores.Typed = new MixedStorageKVStore<long, byte[]>(Options(directory, "typed", configure));
            return stores;
        }
        catch
        {
            // The setup's error is the one to report; what opened before it is closed.
            stores.CloseAsync().GetAwaiter().GetResult();
            throw;
        }
    }

    /// <summary>Closes the stores that were opened, then deletes their directory.</summary>
    public Task CloseAsync()
    {
        Raw?.Dispose();
        return InMemoryBenchmarkStores.CloseAsync(_directory, Engine, Typed);
    }

    private static MixedStorageKVStoreOptions Options(string directory, string name, Action<MixedStorageKVStoreOptions>? configure)
    {
        MixedStorageKVStoreOptions options = InMemoryBenchmarkStores.Options(directory, name);
        configure?.Invoke(options);
        return options;
    }
}
