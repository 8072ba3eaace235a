using MessagePack;

namespace KeyValueStore.Benchmarks.TypedStore;

/// <summary>A small value type as a user would store it: three numbers, serialized by MessagePack as an array of three.</summary>
/// <param name="Id">A number that fits in an int.</param>
/// <param name="Timestamp">A number that needs a long.</param>
/// <param name="Count">A small number.</param>
[MessagePackObject]
public readonly record struct SmallStruct(
    [property: Key(0)] int Id,
    [property: Key(1)] long Timestamp,
    [property: Key(2)] int Count);
