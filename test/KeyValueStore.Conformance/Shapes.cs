using System;
using System.Threading.Tasks;

namespace KeyValueStore.Conformance;

/// <summary>
/// The key and value shapes every store must carry: objects, fixed- and variable-length structs, strings, primitives
/// and byte arrays. A test names a shape and gets back a run of its round trip with records of that shape.
/// </summary>
public static class Shapes
{
    public static TheoryData<string> Names() => ["object", "fixed struct", "variable struct", "string", "int", "long", "double", "Guid", "byte[]"];

    /// <summary>Runs <paramref name="roundTrip"/> with the keys of <paramref name="shape"/>: the i-th key for record i.</summary>
    public static Task AsKeysAsync(string shape, IKeyRoundTrip roundTrip) => shape switch
    {
        "object" => roundTrip.RunAsync(Customer.Sample),
        "fixed struct" => roundTrip.RunAsync(i => new Reading((byte)i, (short)i, i, i * 1_000_000_007L)),
        "variable struct" => roundTrip.RunAsync(i => new Label(new string('x', i % 50) + i, i)),
        "string" => roundTrip.RunAsync(i => $"key-{i}"),
        "int" => roundTrip.RunAsync(i => i - 100),
        "long" => roundTrip.RunAsync(i => long.MaxValue - i),
        "double" => roundTrip.RunAsync(i => i / 3.0),
        "Guid" => roundTrip.RunAsync(i => new Guid(i, 0, 0, new byte[8])),
        "byte[]" => roundTrip.RunAsync(i => BitConverter.GetBytes(i)),
        _ => throw new ArgumentOutOfRangeException(nameof(shape)),
    };

    /// <summary>Runs <paramref name="roundTrip"/> with the values of <paramref name="shape"/> and how to compare two of them.</summary>
    public static Task AsValuesAsync(string shape, IValueRoundTrip roundTrip) => shape switch
    {
        "object" => roundTrip.RunAsync(Customer.Sample, (a, b) => a.Equals(b)),
        "fixed struct" => roundTrip.RunAsync(i => new Reading((byte)i, (short)i, i, i * 3L), (a, b) => a == b),
        "variable struct" => roundTrip.RunAsync(i => new Label(new string('y', i % 300), i), (a, b) => a == b),
        "string" => roundTrip.RunAsync(i => new string('s', i % 500), (a, b) => a == b),
        "int" => roundTrip.RunAsync(i => -i, (a, b) => a == b),
        "long" => roundTrip.RunAsync(i => long.MinValue + i, (a, b) => a == b),
        "double" => roundTrip.RunAsync(i => Math.PI * i, (a, b) => a.Equals(b)),
        "Guid" => roundTrip.RunAsync(i => new Guid(0, (short)i, 0, new byte[8]), (a, b) => a == b),
        "byte[]" => roundTrip.RunAsync(i => new byte[i % 700], (a, b) => a.AsSpan().SequenceEqual(b)),
        _ => throw new ArgumentOutOfRangeException(nameof(shape)),
    };

    /// <summary>Stores records under keys of one shape and finds each again.</summary>
    public interface IKeyRoundTrip
    {
        Task RunAsync<TKey>(Func<int, TKey> keyOf);
    }

    /// <summary>Stores values of one shape and reads each back.</summary>
    public interface IValueRoundTrip
    {
        Task RunAsync<TValue>(Func<int, TValue> valueOf, Func<TValue, TValue, bool> equal);
    }
}
