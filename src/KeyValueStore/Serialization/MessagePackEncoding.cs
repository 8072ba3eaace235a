using System;
using MessagePack;
using MessagePack.Formatters;

namespace KeyValueStore.Serialization;

/// <summary>The store's calls into MessagePack, each turning MessagePack's failures into the library's exceptions.</summary>
internal static class MessagePackEncoding
{
    /// <summary>
    /// The formatter MessagePack would look up for <typeparamref name="T"/> at every call, looked up once, at
    /// construction: a type MessagePack cannot handle at all fails there, before anything touches the disk.
    /// </summary>
    /// <exception cref="SerializationFailedException">The resolver has no formatter for <typeparamref name="T"/>.</exception>
    public static IMessagePackFormatter<T> FormatterFor<T>(MessagePackSerializerOptions options, string role)
    {
        try
        {
            return options.Resolver.GetFormatterWithVerify<T>();
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            // Resolvers fail in their own ways (FormatterNotRegisteredException, a TypeInitializationException around a
            // dynamic resolver's complaint); all of them mean the type cannot be stored.
            throw new SerializationFailedException(typeof(T), role, e.InnerException is not null && e is TypeInitializationException ? e.InnerException : e);
        }
    }

    /// <summary>
    /// Serializes <paramref name="value"/> with <paramref name="formatter"/> after what <paramref name="writer"/> holds,
    /// as <c>MessagePackSerializer.Serialize</c> would with uncompressed options; on failure the writer is abandoned.
    /// </summary>
    /// <exception cref="SerializationFailedException">The formatter failed, whatever it threw.</exception>
    public static void Serialize<T>(PooledBufferWriter writer, T value, IMessagePackFormatter<T> formatter, MessagePackSerializerOptions options, string role)
    {
        try
        {
            // As MessagePackSerializer would set up its writer: the options' old-spec setting is what makes the bytes.
            var messagePack = new MessagePackWriter(writer) { OldSpec = options.OldSpec ?? false };
            formatter.Serialize(ref messagePack, value, options);
            messagePack.Flush();
        }
        catch (Exception e)
        {
            writer.Abandon();
            if (e is OutOfMemoryException)
            {
                throw;
            }

            // MessagePackSerializer wraps whatever a formatter throws in its own exception; called directly, so does this.
            throw new SerializationFailedException(typeof(T), role, new MessagePackSerializationException($"Failed to serialize {typeof(T).FullName} value.", e), value?.GetType());
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
