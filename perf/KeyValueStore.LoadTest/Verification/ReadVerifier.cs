using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.Threading;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Verification;

/// <summary>
/// Judges each read against the model and keeps the mismatches: all of them counted, the first
/// <see cref="MaxExamples"/> kept for the report. Thread-safe.
/// </summary>
internal sealed class ReadVerifier
{
    public const int MaxExamples = 20;

    private readonly int _valueSize;
    private readonly ValueFill _fill;
    private readonly ConcurrentQueue<Mismatch> _examples = new();
    private long _mismatches;

    public ReadVerifier(int valueSize, ValueFill fill = ValueFill.Random)
    {
        _valueSize = valueSize;
        _fill = fill;
    }

    public long Mismatches => Interlocked.Read(ref _mismatches);

    public IReadOnlyCollection<Mismatch> Examples => _examples.ToArray();

    /// <summary>
    /// Checks one read of <paramref name="keyId"/> that started when version <paramref name="lowest"/>
    /// had completed and ended while <paramref name="highest"/> was the newest issued.
    /// <paramref name="length"/> is -1 for "not found", else the value's length; <paramref name="value"/>
    /// holds its first bytes. Returns false (and records why) when the read is wrong.
    /// </summary>
    public bool Check(string phase, OperationType operation, long keyId, long lowest, long highest, int length, ReadOnlySpan<byte> value)
    {
        string? problem = Judge(keyId, lowest, highest, length, value);
        if (problem is null)
        {
            return true;
        }

        if (Interlocked.Increment(ref _mismatches) <= MaxExamples)
        {
            _examples.Enqueue(new Mismatch(phase, operation, keyId, lowest, highest, problem));
        }

        return false;
    }

    private string? Judge(long keyId, long lowest, long highest, int length, ReadOnlySpan<byte> value)
    {
        if (length < 0)
        {
            return lowest == 0 ? null : "not found";
        }

        if (highest == 0)
        {
            return string.Create(CultureInfo.InvariantCulture, $"found a {length}-byte value for a key never written");
        }

        if (length != _valueSize)
        {
            return string.Create(CultureInfo.InvariantCulture, $"value of {length} bytes, expected {_valueSize}");
        }

        DecodedValue decoded = RecordCodec.Decode(value[..length], _fill);
        if (decoded.Id != keyId)
        {
            return string.Create(CultureInfo.InvariantCulture, $"value of record {decoded.Id} (version {decoded.Version})");
        }

        if (!decoded.FillerIntact)
        {
            return string.Create(CultureInfo.InvariantCulture, $"version {decoded.Version} with corrupted bytes");
        }

        if (decoded.Version < Math.Max(lowest, 1) || decoded.Version > highest)
        {
            return string.Create(CultureInfo.InvariantCulture, $"version {decoded.Version}");
        }

        return null;
    }
}
