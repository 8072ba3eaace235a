namespace KeyValueStore;

/// <summary>
/// What a read returns: whether the key has a live record, and its value. Deconstructs as
/// <c>(KeyStatus status, TValue? value) = await store.ReadAsync(key);</c>.
/// </summary>
/// <typeparam name="TValue">The store's value type.</typeparam>
/// <param name="Status">Whether the key was found.</param>
/// <param name="Value">The stored value when <paramref name="Status"/> is <see cref="KeyStatus.Found"/>; otherwise the type's default.</param>
public readonly record struct ReadResult<TValue>(KeyStatus Status, TValue? Value)
{
    /// <summary>Gets whether the key was found.</summary>
    public bool Found => Status == KeyStatus.Found;
}
