using System;
using System.Linq;
using MessagePack;

namespace KeyValueStore.Conformance;

/// <summary>A reference type with variable-length members, the shape of the reference README's object example.</summary>
[MessagePackObject]
public sealed class Customer : IEquatable<Customer>
{
    [Key(0)]
    public string? Name { get; set; }

    [Key(1)]
    public string[]? Tags { get; set; }

    [Key(2)]
    public int Visits { get; set; }

    [Key(3)]
    public int[]? Scores { get; set; }

    public static Customer Sample(int i) => new()
    {
        Name = $"customer-{i}",
        Tags = [$"tag-{i % 7}", "regular"],
        Visits = i,
        Scores = [i, i * 10, i * 100],
    };

    public bool Equals(Customer? other) => other is not null
        && Name == other.Name
        && Visits == other.Visits
        && (Tags ?? []).SequenceEqual(other.Tags ?? [])
        && (Scores ?? []).SequenceEqual(other.Scores ?? []);

    public override bool Equals(object? obj) => Equals(obj as Customer);

    public override int GetHashCode() => HashCode.Combine(Name, Visits);
}

/// <summary>A fixed-length struct of primitives, the shape of the reference README's struct example.</summary>
[MessagePackObject]
public record struct Reading([property: Key(0)] byte Sensor, [property: Key(1)] short Channel, [property: Key(2)] int Count, [property: Key(3)] long Ticks);

/// <summary>A struct with a variable-length member.</summary>
[MessagePackObject]
public record struct Label([property: Key(0)] string Text, [property: Key(1)] int Version);

/// <summary>A mutable class used as a key, to show that a mutated key no longer finds its record.</summary>
[MessagePackObject]
public sealed class MutableKey
{
    [Key(0)]
    public string? Name { get; set; }

    [Key(1)]
    public int Number { get; set; }
}

/// <summary>A type with no MessagePack contract: the standard resolver cannot serialize it.</summary>
public sealed class NotSerializable
{
    public int Value { get; set; }
}

/// <summary>An account balance for the bank invariant.</summary>
[MessagePackObject]
public record struct Balance([property: Key(0)] long Amount);
