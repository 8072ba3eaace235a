using System;
using BenchmarkDotNet.Attributes;
using KeyValueStore.Serialization;
using MessagePack;

namespace KeyValueStore.Benchmarks.HotPath;

/// <summary>
/// The parts the typed store adds around the engine for a <c>long</c> key and a <c>byte[]</c> value, each alone and
/// single-threaded: where the typed store's time over the engine goes (<see cref="HotPathBenchmarks"/>). Each method
/// encodes (or decodes) once and gives back what it rented, as an operation does.
/// </summary>
/// <remarks>
/// Run as <see cref="HotPathBenchmarks"/> is, with a job that picks its own invocation count:
/// <c>dotnet run -c Release --project perf/KeyValueStore.Benchmarks -- --filter '*TypedPathParts*' --job Short --inProcess</c>
/// </remarks>
public class TypedPathPartsBenchmarks
{
    private readonly KeyEncoder<long> _keys = new(MessagePackSerializerOptions.Standard);
    private readonly ValueCodec<byte[]> _values = new(MessagePackSerializerOptions.Standard, compressionThreshold: 1024, maxPayloadLength: 1 << 25);
    private byte[] _value = [];
    private byte[] _stored = [];

    /// <summary>The value's length in bytes, as in <see cref="HotPathBenchmarks"/>.</summary>
    [Params(16, 256)]
    public int ValueSize { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _value = new byte[ValueSize];
        Random.Shared.NextBytes(_value);
        RentedBytes encoded = _values.EncodePlain(_value);
        _stored = encoded.Memory.ToArray();
        encoded.Return();
    }

    /// <summary>The key's bytes, as every operation makes them.</summary>
    [Benchmark]
    public int Key_Encode()
    {
        RentedBytes key = _keys.Encode(42L);
        int length = key.Length;
        key.Return();
        return length;
    }

    /// <summary>
    /// The value's envelope and MessagePack bytes (below the compression threshold), in a buffer of their own; an upsert
    /// writes them after the key in the key's buffer (<c>EncodedRecord</c>), which saves a rent and return of this.
    /// </summary>
    [Benchmark]
    public int Value_Encode()
    {
        RentedBytes value = _values.CompressIfWorthwhile(_values.EncodePlain(_value));
        int length = value.Length;
        value.Return();
        return length;
    }

    /// <summary>The value a read returns, from the stored bytes.</summary>
    [Benchmark]
    public int Value_Decode() => _values.Decode(_stored).Length;
}
