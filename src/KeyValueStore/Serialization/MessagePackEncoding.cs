using System;
using MessagePack;

namespace KeyValueStore.Serialization;

/// <summary>The store's calls into MessagePack, each turning MessagePack's failures into the library's exceptions.</summary>
internal static class MessagePackEncoding
{
    /// <summary>Fails at construction, before anything touches the disk, when MessagePack cannot handle <typeparamref name="T"/> at all.</summary>
    /// <exception cref="SerializationFailedException">The resolver has no formatter for <typeparamref name="T"/>.</exception>
    public static void EnsureFormatterExists<T>(MessagePackSerializerOptions options, string role)
    {
        try
        {
            options.Resolver.GetFormatterWithVerify<T>();
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            // Resolvers fail in their own ways (FormatterNotRegisteredException, a TypeInitializationException around a
            // dynamic resolver's complaint); all of them mean the type cannot be stored.
            throw new SerializationFailedException(typeof(T), role, e.InnerException is not null && e is TypeInitializationException ? e.InnerException : e);
        }
    }

    /// <summary>Serializes <paramref name="value"/> after what <paramref name="writer"/> holds; on failure the writer is abandoned.</summary>
    /// <exception cref="SerializationFailedException">MessagePack failed.</exception>
    public static void Serialize<T>(PooledBufferWriter writer, T value, MessagePackSerializerOptions options, string role)
    {
        try
        {
            MessagePackSerializer.Serialize(writer, value, options);
        }
        catch (MessagePackSerializationException e)
        {
            writer.Abandon();
            throw new SerializationFailedException(typeof(T), role, e, value?.GetType());
        }
        catch
        {
            writer.Abandon();
            throw;
        }
    }

    /// <summary>Deserializes exactly the bytes of <paramref name="payload"/>: bytes left over mean the payload is not one value.</summary>
    /// <exception cref="ValueCorruptedException">The bytes are not a MessagePack encoding of one <typeparamref name="T"/>.</exception>
    public static T Deserialize<T>(ReadOnlyMemory<byte> payload, MessagePackSerializerOptions options)
    {
        T value;
        int read;
        try
        {
            value = MessagePackSerializer.Deserialize<T>(payload, options, out read);
        }
        catch (MessagePackSerializationException e)
        {
            throw new ValueCorruptedException($"MessagePack cannot read its {payload.Length} bytes as {TypeNames.Of(typeof(T))} ({e.Message})", e);
        }

        if (read != payload.Length)
        {
            throw new ValueCorruptedException($"MessagePack read one {TypeNames.Of(typeof(T))} from the first {read} of its {payload.Length} bytes, and the rest is left over");
        }

        return value;
    }
}
