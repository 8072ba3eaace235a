namespace KeyValueStore.Storage;

/// <summary>
/// What the bytes of a store's records mean: the key and value types and the serializer settings that wrote them.
/// Recorded in a durable store's manifest, so that reopening the files with other types fails clearly instead of
/// deserializing garbage.
/// </summary>
/// <param name="KeyType">The key type's name, as the typed store reports it.</param>
/// <param name="ValueType">The value type's name.</param>
/// <param name="Serialization">The serializer and its settings, in a stable textual form.</param>
internal sealed record RecordFormat(string KeyType, string ValueType, string Serialization)
{
    /// <summary>Records written by the engine itself: raw bytes, no serializer.</summary>
    public static RecordFormat RawBytes { get; } = new("System.Byte[]", "System.Byte[]", "none");
}
