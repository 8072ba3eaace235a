using MessagePack;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// The value type of Jering.KeyValueStore's LowMemory benchmark, with the same shape: a string, five strings, an int
/// and seven ints, MessagePack keys 0 to 3. Populated by <see cref="Sample"/> as that benchmark populates it.
/// </summary>
[MessagePackObject]
public sealed class DummyClass
{
    [Key(0)]
    public string? DummyString { get; set; }

    [Key(1)]
    public string[]? DummyStringArray { get; set; }

    [Key(2)]
    public int DummyInt { get; set; }

    [Key(3)]
    public int[]? DummyIntArray { get; set; }

    /// <summary>A new instance with the benchmark's contents.</summary>
    public static DummyClass Sample() => new()
    {
        DummyString = "dummyString",
        DummyStringArray = ["dummyString1", "dummyString2", "dummyString3", "dummyString4", "dummyString5"],
        DummyInt = 10,
        DummyIntArray = [10, 100, 1000, 10000, 100000, 1000000, 10000000],
    };
}
