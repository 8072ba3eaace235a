using System;
using BenchmarkDotNet.Attributes;
using KeyValueStore.Serialization;
using MessagePack;

namespace KeyValueStore.Benchmarks.HotPath;

/// <summary>
/// A value at or above the compression threshold encoded as a typed upsert encodes it, again and again: random bytes,
/// which LZ4 cannot shrink (the codec's attempts back off after a run of them), against bytes it can. Single-threaded.
/// </summary>
/// <remarks>
/// <c>dotnet run -c Release --project perf/KeyValueStore.Benchmarks -- --filter '*ValueCompression*' --job Short --inProcess</c>
/// </remarks>
public class ValueCompressionBenchmarks
{
    private readonly ValueCodec<byte[]> _values = new(MessagePackSerializerOptions.Standard, compressionThreshold: 1024, maxPayloadLength: 1 << 25);
    private byte[] _value = [];

    /// <summary>The value's length in bytes: at the store's default threshold, and four times it.</summary>
    [Params(1024, 4096)]
    public int ValueSize { get; set; }

    /// <summary>Random bytes, or each random 8-byte word four times (as the load test's <c>--value-fill compressible</c>).</summary>
    [Params(false, true)]
    public bool Compressible { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _value = new byte[ValueSize];
        var random = new Random(ValueSize);
        random.NextBytes(_value);
        if (Compressible)
        {
            for (int i = 8; i < _value.Length; i++)
            {
                _value[i] = _value[i - 8 * ((i / 8) % 4)];
            }
        }
    }

    /// <summary>The value's envelope, compressed when that pays, in a buffer of its own.</summary>
    [Benchmark]
    public int Value_Encode()
    {
        RentedBytes value = _values.CompressIfWorthwhile(_values.EncodePlain(_value));
        int length = value.Length;
        value.Return();
        return length;
    }
}
