using System;
using System.Buffers;
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
/// The counts and stores are the derived classes': the reference's own, and a smaller insert count for the stores that
/// sync on every single-write transaction.
/// </summary>
public abstract class JeringLowMemoryWorkload
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

    /// <summary>Gets the catalog name of the store under test (<c>typed</c>: the product's own typed store).</summary>
    // The derived classes declare the benchmarks (their OperationsPerInvoke must be constants of their own); every
    // derived class opens and closes its store the same way, so the setups live here, naming the benchmarks by name.
    [IterationSetup(Target = "Inserts")]
    public void OpenForInserts() => OpenEmpty();

    [IterationCleanup(Target = "Inserts")]
    public void CloseAfterInserts() => Close();

    [GlobalSetup(Target = "Reads")]
    public void OpenForReads() => OpenLoaded();

    [GlobalCleanup(Target = "Reads")]
    public void CloseAfterReads() => Close();

    protected abstract string StoreName { get; }

    /// <summary>Gets how many records are inserted.</summary>
    protected abstract int InsertCount { get; }

    /// <summary>Gets how many random reads an invocation makes.</summary>
    protected abstract int ReadCount { get; }

    /// <summary>Opens an empty store.</summary>
    protected void OpenEmpty() => Open();

    /// <summary>Opens a store holding every record (loaded in batches where the store can, not measured), and picks the keys to read.</summary>
    protected void OpenLoaded()
    {
        Open();
        if (_ours is not null)
        {
            Insert(InsertCount).GetAwaiter().GetResult();
        }
        else
        {
            byte[] serialized = MessagePackSerializer.Serialize(_value);
            _peer!.FillAsync(InsertCount, serialized).GetAwaiter().GetResult();
        }

        var random = new SplitMix64(42);
        _readIds = new int[ReadCount];
        for (int i = 0; i < _readIds.Length; i++)
        {
            _readIds[i] = (int)random.NextBelow(InsertCount);
        }
    }

    /// <summary>Inserts every record: new keys, in order, each awaited before the next.</summary>
    protected Task InsertAll() => Insert(InsertCount);

    /// <summary>Reads random loaded keys, each awaited before the next; returns a checksum of what was read.</summary>
    protected async Task<long> ReadAll()
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

            sum += value?.DummyInt ?? throw new InvalidOperationException($"{StoreName} lost key {id}.");
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
        if (StoreName == StoreNames.Ours)
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
            _peer = BenchStore.Open(StoreName, InsertCount, valueSize, LogMemoryBytes);
        }
    }

    /// <summary>Closes the store and deletes its files.</summary>
    protected void Close()
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
