namespace KeyValueStore.Redis;

/// <summary>
/// Thrown when <c>UpdateManyAsync</c> found its keys changed by another writer between its read and its commit on each of
/// <see cref="RedisKVStoreOptions.MaxUpdateAttempts"/> attempts. Nothing was written; the call can be retried.
/// </summary>
public sealed class UpdateContendedException : KeyValueStoreException
{
    internal UpdateContendedException(int attempts)
        : base(
            $"The update read its keys and tried to commit {attempts} times, and each time another writer had changed "
            + "one of them first, so nothing was written. Retry later, write these keys from fewer places at once, or "
            + $"raise {nameof(RedisKVStoreOptions)}.{nameof(RedisKVStoreOptions.MaxUpdateAttempts)}.")
    {
        Attempts = attempts;
    }

    /// <summary>Gets how many times the update tried to commit.</summary>
    public int Attempts { get; }
}
