using System;
using System.IO;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using MessagePack;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.Benchmarks.TypedStore;

/// <summary>
/// What the typed facade costs over the engine beneath it, single-threaded, everything in memory: the public
/// <see cref="MixedStorageKVStore{TKey, TValue}"/> of <c>int</c> keys and <see cref="SmallStruct"/> values against a
/// <see cref="FasterRecordStore"/> given the very bytes the facade would store (the MessagePack key, and the value's
/// one-byte envelope and MessagePack payload), so the difference is serialization and the facade's own work.
/// </summary>
/// <remarks>
/// Each operation is a category with the engine as its baseline, so Ratio compares the two stores per operation.
/// Both stores: <see cref="InMemoryBenchmarkStores.Options"/> (1,024 small records never leave the mutable region of 64 MB),
/// compaction off, durability none, a 16 K-bucket hash index. Keys cycle through the loaded ones, so every read hits and every upsert updates
/// in place; a delete takes a key never written, so it finds nothing and writes nothing, and the store stays as loaded.
/// </remarks>
[Config(typeof(InMemoryBenchmarkStores.PerOperationConfig))]
public class TypedStoreBenchmarks
{
    private const int Keys = 1024;

    // Past every loaded key: a delete of it finds nothing.
    private const int AbsentKey = Keys + 1;

    private readonly SmallStruct _value = new(Id: 7, Timestamp: 638_000_000_000_000_000, Count: 3);
    private readonly byte[][] _keyBytes = new byte[Keys][];
    private byte[] _absentKeyBytes = [];
    private byte[] _valueBytes = [];
    private string _directory = string.Empty;
    private MixedStorageKVStore<int, SmallStruct>? _typed;
    private FasterRecordStore? _engine;
    private int _next;

    [GlobalSetup]
    public async Task OpenStoresAsync()
    {
        _directory = Path.Combine(Path.GetTempPath(), "kvstore-bench-typed", Guid.NewGuid().ToString("N"));
        _typed = new MixedStorageKVStore<int, SmallStruct>(InMemoryBenchmarkStores.Options(_directory, "typed"));
        _engine = StoreOpener.Open(StoreSettingsValidator.Validate(InMemoryBenchmarkStores.Options(_directory, "engine")), NullLogger.Instance);

        // The facade's stored form: MessagePack keys as they are; values behind a plain envelope byte (0x00), which
        // a value this small keeps (it is below the compression threshold).
        for (int key = 0; key < Keys; key++)
        {
            _keyBytes[key] = MessagePackSerializer.Serialize(key, MessagePackSerializerOptions.Standard);
        }

        _absentKeyBytes = MessagePackSerializer.Serialize(AbsentKey, MessagePackSerializerOptions.Standard);
        byte[] payload = MessagePackSerializer.Serialize(_value, MessagePackSerializerOptions.Standard);
        _valueBytes = new byte[1 + payload.Length];
        payload.CopyTo(_valueBytes, 1);

        for (int key = 0; key < Keys; key++)
        {
            await _typed.UpsertAsync(key, _value).ConfigureAwait(false);
            await _engine.UpsertAsync(_keyBytes[key], _valueBytes).ConfigureAwait(false);
        }

        // The engine holds what the facade wrote: same bytes, so the two sides do the same engine work.
        (bool found, PooledBuffer stored) = await _typed.Engine.ReadAsync(_keyBytes[5]).ConfigureAwait(false);
        bool same = found && stored.Span.SequenceEqual(_valueBytes);
        stored.Return();
        if (!same)
        {
            throw new InvalidOperationException("The engine's bytes differ from the facade's stored form; the comparison would not be like for like.");
        }
    }

    [GlobalCleanup]
    public Task CloseStoresAsync() => InMemoryBenchmarkStores.CloseAsync(_directory, _typed, _engine);

    [BenchmarkCategory("Upsert"), Benchmark(Baseline = true)]
    public ValueTask Engine_Upsert() => _engine!.UpsertAsync(_keyBytes[NextKey()], _valueBytes);

    [BenchmarkCategory("Upsert"), Benchmark]
    public ValueTask Typed_Upsert() => _typed!.UpsertAsync(NextKey(), _value);

    /// <summary>A read that hits; returns the value's length so the read cannot be optimized away.</summary>
    [BenchmarkCategory("Read"), Benchmark(Baseline = true)]
    public ValueTask<int> Engine_Read() => InMemoryBenchmarkStores.ReadLengthAsync(_engine!, _keyBytes[NextKey()]);

    /// <summary>A read that hits; returns a field of the value it decoded.</summary>
    [BenchmarkCategory("Read"), Benchmark]
    public async ValueTask<int> Typed_Read()
    {
        ReadResult<SmallStruct> result = await _typed!.ReadAsync(NextKey()).ConfigureAwait(false);
        return result.Found ? result.Value.Count : -1;
    }

    [BenchmarkCategory("DeleteAbsent"), Benchmark(Baseline = true)]
    public ValueTask<bool> Engine_DeleteAbsent() => _engine!.DeleteAsync(_absentKeyBytes);

    [BenchmarkCategory("DeleteAbsent"), Benchmark]
    public ValueTask<KeyStatus> Typed_DeleteAbsent() => _typed!.DeleteAsync(AbsentKey);

    private int NextKey() => _next = (_next + 1) & (Keys - 1);
}
