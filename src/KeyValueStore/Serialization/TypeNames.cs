using System;
using System.Linq;

namespace KeyValueStore.Serialization;

/// <summary>
/// Names a type the way C# writes it, without assembly versions, so that a manifest written by one build of an
/// application still matches the next build's types.
/// </summary>
internal static class TypeNames
{
    public static string Of(Type type)
    {
        if (type.IsArray)
        {
            return Of(type.GetElementType()!) + "[" + new string(',', type.GetArrayRank() - 1) + "]";
        }

        if (!type.IsGenericType)
        {
            return type.FullName ?? type.Name;
        }

        string definition = type.GetGenericTypeDefinition().FullName ?? type.Name;
        int tick = definition.IndexOf('`', StringComparison.Ordinal);
        string name = tick < 0 ? definition : definition[..tick];
        return name + "<" + string.Join(", ", type.GetGenericArguments().Select(Of)) + ">";
    }
}
