using System;

namespace KeyValueStore.Serialization;

/// <summary>
/// Decides whether a value at or above the compression threshold is worth an LZ4 attempt. After
/// <see cref="IncompressibleInARowToBackOff"/> values in a row that LZ4 could not shrink, only about one value in
/// <see cref="TriedOneInWhileBackedOff"/> is tried; the first that shrinks ends the back-off.
/// </summary>
/// <remarks>
/// An attempt on incompressible bytes (already compressed or encrypted data, random identifiers) costs a full LZ4 pass
/// whose output is thrown away: 7.8% of the CPU samples of a 1 KB write-heavy load test, 0.7% with the back-off
/// (docs/benchmarks.md, "Compression attempts that back off"). What it costs a store whose values turn compressible: the few values written during the
/// back-off before one is tried again are stored plain, as they would be with compression off; every value still reads
/// back exactly, since each records how it was stored.
/// <para>
/// Why 64 in a row: in a stream that mixes the two kinds at random, a run of misses long enough to back off must be
/// rare while compressible values are common enough to be worth the attempts. Backing off after 8 left 47% of the
/// compressible values plain where they were 30% of the stream, and 72% at 20%; after 64, none at 20% or more, 2% at
/// 10%, 38% at 5% (docs/benchmarks.md). A stream of only incompressible values pays the 64 attempts once.
/// </para>
/// <para>
/// Thread-safe without locks: the count is a plain field that writers may race on, which can only move a back-off by a
/// value or two. A steady state writes nothing shared (compressible: the count stays 0; incompressible: it stays at the
/// bound), and the tries are drawn from <see cref="Random.Shared"/>, whose state is per thread, so no write goes through
/// one shared counter.
/// </para>
/// </remarks>
internal sealed class CompressionBackoff
{
    /// <summary>The values in a row that LZ4 could not shrink after which attempts back off.</summary>
    public const int IncompressibleInARowToBackOff = 64;

    /// <summary>While backed off, about one value in this many is tried.</summary>
    public const int TriedOneInWhileBackedOff = 16;

    private int _incompressibleInARow;

    /// <summary>Gets whether attempts are backed off: the last values tried did not shrink.</summary>
    public bool IsBackedOff => _incompressibleInARow >= IncompressibleInARowToBackOff;

    /// <summary>Whether to try compressing the next value; when true, the caller reports the outcome to <see cref="Record"/>.</summary>
    public bool ShouldTry() => !IsBackedOff || Random.Shared.Next(TriedOneInWhileBackedOff) == 0;

    /// <summary>Learns from an attempt: a value that shrank ends any back-off, one that did not counts toward it.</summary>
    public void Record(bool shrank)
    {
        if (shrank)
        {
            if (_incompressibleInARow != 0)
            {
                _incompressibleInARow = 0;
            }
        }
        else if (_incompressibleInARow < IncompressibleInARowToBackOff)
        {
            _incompressibleInARow++;
        }
    }
}
