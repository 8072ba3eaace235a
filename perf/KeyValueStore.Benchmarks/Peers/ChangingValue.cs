using System;
using System.Buffers.Binary;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// One worker's value for writes over keys that already hold a value: the base bytes with the worker and a count of
/// its writes in the first eight, so that no write stores the bytes its key already holds.
/// </summary>
/// <remarks>
/// SQLite leaves a row alone when an update's new content equals the old: no page is written, and with
/// <c>synchronous=FULL</c> the commit has nothing to sync. Rewriting one fixed value measured SQLite doing no work: 6 µs
/// per "durable" write at 64 writers, and 6,431 syncs of its write-ahead log over 38,400 commits (strace), against
/// 130 µs per write in the load test, whose values change. Every store copies the bytes before a write completes
/// (the in-memory dictionary keeps the array, which only its reads would see), so one buffer per worker serves.
/// </remarks>
internal sealed class ChangingValue
{
    private readonly byte[] _bytes;
    private readonly long _worker;
    private long _writes;

    /// <param name="template">The bytes to write, at least eight; copied.</param>
    /// <param name="worker">The worker writing them (below 65,536), so that two workers' values differ too.</param>
    public ChangingValue(byte[] template, int worker)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(template.Length, sizeof(long));
        _bytes = (byte[])template.Clone();
        _worker = (long)worker << 48;
    }

    /// <summary>The value for the next write: its first eight bytes differ from every earlier one's.</summary>
    public byte[] Next()
    {
        BinaryPrimitives.WriteInt64LittleEndian(_bytes, _worker | ++_writes);
        return _bytes;
    }
}
