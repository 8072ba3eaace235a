using System;
using System.Collections.Generic;

namespace KeyValueStore;

/// <summary>
/// Upserts and deletes to apply as one atomic step with <see cref="IMixedStorageKVStore{TKey, TValue}.ApplyBatchAsync"/>:
/// readers and a crash see all of them or none. Writes apply in the order added, so the last write of a key wins.
/// </summary>
/// <remarks>
/// A batch holds at most <see cref="MaxWrites"/> writes. It keeps the keys and values it is given (it serializes them
/// when applied), so objects added to it must not change until then. Not thread-safe; reusable after <see cref="Clear"/>.
/// </remarks>
/// <typeparam name="TKey">The store's key type.</typeparam>
/// <typeparam name="TValue">The store's value type.</typeparam>
public sealed class WriteBatch<TKey, TValue>
{
    /// <summary>The most writes one batch may hold.</summary>
    public const int MaxWrites = BatchTooLargeException.MaxWrites;

    private readonly List<BatchedWrite<TKey, TValue>> _writes = [];

    /// <summary>Gets the number of writes in the batch.</summary>
    public int Count => _writes.Count;

    /// <summary>Adds an upsert of <paramref name="key"/> to <paramref name="value"/>.</summary>
    /// <returns>This batch, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is null.</exception>
    /// <exception cref="BatchTooLargeException">The batch already holds <see cref="MaxWrites"/> writes.</exception>
    public WriteBatch<TKey, TValue> Upsert(TKey key, TValue value) => Add(new BatchedWrite<TKey, TValue>(key, value, IsDelete: false));

    /// <summary>Adds a delete of <paramref name="key"/>.</summary>
    /// <returns>This batch, to chain calls.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="key"/> is null.</exception>
    /// <exception cref="BatchTooLargeException">The batch already holds <see cref="MaxWrites"/> writes.</exception>
    public WriteBatch<TKey, TValue> Delete(TKey key) => Add(new BatchedWrite<TKey, TValue>(key, default, IsDelete: true));

    /// <summary>Removes every write, so the batch can be filled again.</summary>
    public void Clear() => _writes.Clear();

    /// <summary>Gets the writes in the order they were added: for a store implementing <see cref="IMixedStorageKVStore{TKey, TValue}"/> over another engine.</summary>
    public IReadOnlyList<BatchedWrite<TKey, TValue>> Writes => _writes;

    private WriteBatch<TKey, TValue> Add(BatchedWrite<TKey, TValue> write)
    {
        if (write.Key is null)
        {
            throw new ArgumentNullException("key", "A key cannot be null: the store finds records by the bytes of their keys.");
        }

        if (_writes.Count == MaxWrites)
        {
            throw new BatchTooLargeException(_writes.Count + 1);
        }

        _writes.Add(write);
        return this;
    }
}
