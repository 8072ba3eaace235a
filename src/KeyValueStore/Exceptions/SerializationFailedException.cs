using System;

namespace KeyValueStore;

/// <summary>
/// Thrown when MessagePack cannot serialize a key or value type with the store's serializer options: when the store is
/// created (the type has no formatter) or when a write serializes an instance (a member the formatter cannot handle).
/// </summary>
/// <remarks>Nothing is written; the store stays usable and keeps everything already stored.</remarks>
public sealed class SerializationFailedException : KeyValueStoreException
{
    internal SerializationFailedException(Type type, string role, Exception innerException, Type? instanceType = null)
        : base($"MessagePack cannot serialize the {role} type {type.FullName ?? type.Name}"
            + (instanceType is not null && instanceType != type ? $" (this instance is a {instanceType.FullName ?? instanceType.Name})" : "")
            + $": {innerException.GetBaseException().Message} "
            + "Annotate the type with [MessagePackObject] and give each member a [Key], or set "
            + $"{nameof(MixedStorageKVStoreOptions)}.{nameof(MixedStorageKVStoreOptions.MessagePackSerializerOptions)} to options whose resolver "
            + "handles it (for example MessagePack.Resolvers.ContractlessStandardResolver). Nothing was written.", innerException)
    {
        Type = type;
        Role = role;
    }

    /// <summary>Gets the type that could not be serialized.</summary>
    public Type Type { get; }

    /// <summary>Gets whether the type is the store's <c>key</c> or <c>value</c> type.</summary>
    public string Role { get; }
}
