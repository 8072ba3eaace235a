using System;

namespace KeyValueStore;

/// <summary>
/// Thrown by a read when a stored value cannot be decoded: its envelope is damaged, its compressed bytes do not
/// decompress to the length recorded with them, or MessagePack cannot read the result as the store's value type.
/// </summary>
/// <remarks>
/// No value is returned and nothing is allocated for an absurd length; the store stays usable. The bytes were damaged
/// after they were written (turn on <see cref="MixedStorageKVStoreOptions.ValueChecksums"/> to detect that when it happens),
/// or a store that records no types (a caller-supplied FasterKV) was written with other types or serializer options.
/// </remarks>
public sealed class ValueCorruptedException : KeyValueStoreException
{
    internal ValueCorruptedException(string problem, Exception? innerException = null)
        : base($"A stored value cannot be decoded: {problem}. The value was not returned and the store stays usable. "
            + "Write the key again to replace the value, or restore the store from a backup; if the store was written with other "
            + "key or value types or serializer options, open it with those.", innerException)
    {
        Problem = problem;
    }

    /// <summary>Gets what is wrong with the stored value.</summary>
    public string Problem { get; }
}
