using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.LoadTest.Workloads;
using MessagePack;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// Jering.KeyValueStore's LowMemory benchmark: <c>int</c> keys and <see cref="DummyClass"/> values, 8 KB of log in
/// memory (4 KB pages, two of them), compaction off; 350,000 inserts one after another, then 75,000 reads of random
/// keys. Ours is the product's own path, <see cref="MixedStorageKVStore{TKey, TValue}"/> of <c>int</c> and
/// <see cref="DummyClass"/>; each peer gets the same object serialized with MessagePack into a reused buffer, under the
/// load test's 8-byte key, and a read deserializes what it got back, so every store returns a <see cref="DummyClass"/>.
/// </summary>
public class JeringLowMemoryBenchmarks
{
    private const long LogMemoryBytes = 1L << 13;

    private readonly DummyClass _value = DummyClass.Sample();
    private readonly ArrayBufferWriter<byte> _serialized = new(256);
    private readonly byte[] _key = new byte[RecordCodec.KeySize];
    private byte[] _readBuffer = [];
    private int[] _readIds = [];
    private MixedStorageKVStore<int, DummyClass>? _ours;
    private string _oursDirectory = string.Empty;
    private BenchStore? _peer;

    [ParamsSource(nameof(Stores))]
    public string Store { get; set; } = StoreNames.Ours;

    public static IEnumerable<string> Stores() => StoreNames.JeringPeers();

    [IterationSetup(Target = nameof(Inserts))]
    public void OpenEmpty() => Open();

    [IterationCleanup(Target = nameof(Inserts))]
    public void CloseEmpty() => Close();

    [GlobalSetup(Target = nameof(Reads))]
    public void OpenLoaded()
    {
        Open();
        Insert(BenchSize.Ops(BenchSize.JeringInserts)).GetAwaiter().GetResult();
        var random = new SplitMix64(42);
        int inserted = BenchSize.Ops(BenchSize.JeringInserts);
        _readIds = new int[BenchSize.Ops(BenchSize.JeringReads)];
        for (int i = 0; i < _readIds.Length; i++)
        {
            _readIds[i] = (int)random.NextBelow(inserted);
        }
    }

    [GlobalCleanup(Target = nameof(Reads))]
    public void CloseLoaded() => Close();

    /// <summary>350,000 inserts of new keys, in order, each awaited before the next.</summary>
    [Benchmark(OperationsPerInvoke = BenchSize.JeringInserts)]
    public Task Inserts() => Insert(BenchSize.Ops(BenchSize.JeringInserts));

    /// <summary>75,000 reads of random loaded keys, each awaited before the next; returns a checksum of what was read.</summary>
    [Benchmark(OperationsPerInvoke = BenchSize.JeringReads)]
    public async Task<long> Reads()
    {
        long sum = 0;
        foreach (int id in _readIds)
        {
            DummyClass? value;
            if (_ours is not null)
            {
                value = (await _ours.ReadAsync(id).ConfigureAwait(false)).Value;
            }
            else
            {
                RecordCodec.WriteKey(_key, id);
                int length = await _peer!.Backend.ReadAsync(_key, _readBuffer).ConfigureAwait(false);
                value = length < 0 ? null : MessagePackSerializer.Deserialize<DummyClass>(_readBuffer.AsMemory(0, length));
            }

            sum += value?.DummyInt ?? throw new InvalidOperationException($"{Store} lost key {id}.");
        }

        return sum;
    }

    private async Task Insert(int count)
    {
        for (int id = 0; id < count; id++)
        {
            if (_ours is not null)
            {
                await _ours.UpsertAsync(id, _value).ConfigureAwait(false);
            }
            else
            {
                _serialized.ResetWrittenCount();
                MessagePackSerializer.Serialize(_serialized, _value);
                RecordCodec.WriteKey(_key, id);
                await _peer!.Backend.UpsertAsync(_key, _serialized.WrittenMemory).ConfigureAwait(false);
            }
        }
    }

    private void Open()
    {
        int valueSize = MessagePackSerializer.Serialize(_value).Length;
        _readBuffer = new byte[valueSize];
        if (Store == StoreNames.Ours)
        {
            _oursDirectory = Path.Combine(Path.GetTempPath(), "kvstore-bench-peers", $"jering-{Guid.NewGuid():N}");
            _ours = new MixedStorageKVStore<int, DummyClass>(new MixedStorageKVStoreOptions
            {
                LogDirectory = _oursDirectory,
                LogFileNamePrefix = "jering",
                PageSizeBits = 12,
                MemorySizeBits = 13,
                TimeBetweenLogCompactionsMS = -1,
            });
        }
        else
        {
            _peer = BenchStore.Open(Store, BenchSize.Ops(BenchSize.JeringInserts), valueSize, LogMemoryBytes);
        }
    }

    private void Close()
    {
        if (_ours is not null)
        {
            _ours.DisposeAsync().AsTask().GetAwaiter().GetResult();
            _ours = null;
            if (Directory.Exists(_oursDirectory))
            {
                Directory.Delete(_oursDirectory, recursive: true);
            }
        }

        if (_peer is not null)
        {
            _peer.DisposeAsync().AsTask().GetAwaiter().GetResult();
            _peer = null;
        }
    }
}
