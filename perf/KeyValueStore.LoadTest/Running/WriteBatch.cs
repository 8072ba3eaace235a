using System;
using System.Collections.Generic;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Running;

/// <summary>
/// One worker's batch of writes (--batch-size above 1): the types of the writes as they are drawn, then, once
/// it is full, each write's record id, version and bytes. A batch's buffers must all stay untouched until the
/// backend acknowledges it, so each write has its own key and value arrays, allocated once and reused by every
/// batch. Whole arrays, not slices of one: SQLite binds a whole array without copying it. Not thread-safe.
/// </summary>
internal sealed class WriteBatch
{
    private readonly OperationType[] _types;
    private readonly long[] _ids;
    private readonly long[] _versions;
    private readonly byte[][] _keys;
    private readonly byte[][] _values;
    private readonly (ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)[] _writes;
    private readonly ValueFill _fill;

    public WriteBatch(int size, int valueSize, ValueFill fill = ValueFill.Random)
    {
        _fill = fill;
        _types = new OperationType[size];
        _ids = new long[size];
        _versions = new long[size];
        _keys = new byte[size][];
        _values = new byte[size][];
        _writes = new (ReadOnlyMemory<byte>, ReadOnlyMemory<byte>)[size];
        for (int i = 0; i < size; i++)
        {
            _keys[i] = new byte[RecordCodec.KeySize];
            _values[i] = new byte[valueSize];
            _writes[i] = (_keys[i], _values[i]);
        }
    }

    /// <summary>Gets the writes a full batch holds: --batch-size.</summary>
    public int Size => _types.Length;

    /// <summary>Gets the writes drawn so far.</summary>
    public int Count { get; private set; }

    public bool IsFull => Count == Size;

    /// <summary>Gets the keys and values of the batch, for <see cref="Backends.IBatchWriter.WriteBatchAsync"/>, once every write is <see cref="Encode"/>d.</summary>
    public IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> Writes => _writes;

    /// <summary>Adds a drawn write; its id is chosen when the batch is written, see <see cref="SetId"/>.</summary>
    public void Add(OperationType type) => _types[Count++] = type;

    public OperationType TypeAt(int index) => _types[index];

    public long IdAt(int index) => _ids[index];

    public long VersionAt(int index) => _versions[index];

    public void SetId(int index, long id) => _ids[index] = id;

    /// <summary>The ids of the batch's updates: the ones --verify locks (an insert's fresh id has no other writer).</summary>
    public IEnumerable<long> UpdateIds()
    {
        for (int i = 0; i < Count; i++)
        {
            if (_types[i] == OperationType.Update)
            {
                yield return _ids[i];
            }
        }
    }

    /// <summary>Writes the key and value of version <paramref name="version"/> of the write at <paramref name="index"/> into its buffers.</summary>
    public void Encode(int index, long version)
    {
        _versions[index] = version;
        RecordCodec.WriteKey(_keys[index], _ids[index]);
        RecordCodec.WriteValue(_values[index], _ids[index], version, _fill);
    }

    /// <summary>Empties the batch for the next one.</summary>
    public void Clear() => Count = 0;
}
