using KeyValueStore.Storage;

namespace KeyValueStore.Serialization;

/// <summary>The <see cref="RecordFormat"/> a typed store records in its manifest: its key and value types and this serialization.</summary>
internal static class TypedRecordFormat
{
    /// <summary>
    /// Names MessagePack and the envelope's version. The resolver is not named: resolvers are often composed at run time
    /// and have no stable name, and the types already say what the bytes mean.
    /// </summary>
    public const string Serialization = "MessagePack 2, value envelope 1 (plain or LZ4 block)";

    public static RecordFormat For<TKey, TValue>() => new(TypeNames.Of(typeof(TKey)), TypeNames.Of(typeof(TValue)), Serialization);
}
