using MessagePack;

namespace Quickstart;

/// <summary>
/// The value type the sample stores. MessagePack needs a public type marked [MessagePackObject] with a [Key] on each
/// member; a positional record works because MessagePack calls its constructor with the keyed members.
/// </summary>
/// <param name="Customer">Who placed the order.</param>
/// <param name="Item">What was ordered.</param>
/// <param name="Quantity">How many.</param>
[MessagePackObject]
public sealed record Order(
    [property: Key(0)] string Customer,
    [property: Key(1)] string Item,
    [property: Key(2)] int Quantity);
