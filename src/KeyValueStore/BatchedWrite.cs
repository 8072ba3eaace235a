namespace KeyValueStore;

/// <summary>One write of a <see cref="WriteBatch{TKey, TValue}"/>: an upsert of <paramref name="Key"/> to <paramref name="Value"/>, or a delete of it.</summary>
/// <typeparam name="TKey">The store's key type.</typeparam>
/// <typeparam name="TValue">The store's value type.</typeparam>
/// <param name="Key">The key written; never null.</param>
/// <param name="Value">The new value of an upsert; the type's default for a delete.</param>
/// <param name="IsDelete">True for a delete, false for an upsert.</param>
public readonly record struct BatchedWrite<TKey, TValue>(TKey Key, TValue? Value, bool IsDelete);
