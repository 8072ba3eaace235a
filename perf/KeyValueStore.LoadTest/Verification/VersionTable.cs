using System;
using System.Threading;

namespace KeyValueStore.LoadTest.Verification;

/// <summary>
/// One 64-bit counter per record id, for ids that keep growing during a run (inserts). Storage comes
/// in chunks of 65,536 counters allocated on first touch, so the table costs 8 bytes per id written,
/// with no resizing and no lock; ids up to 2^32 fit.
/// </summary>
internal sealed class VersionTable
{
    private const int ChunkBits = 16;
    private const int ChunkSize = 1 << ChunkBits;
    private const long MaxIds = 1L << 32;

    private readonly long[]?[] _chunks = new long[]?[MaxIds >> ChunkBits];

    /// <summary>The counter of <paramref name="id"/>; untouched counters are 0.</summary>
    public ref long this[long id]
    {
        get
        {
            if ((ulong)id >= MaxIds)
            {
                throw new InvalidOperationException($"Record id {id} is beyond the load test's key space of {MaxIds} ids.");
            }

            long[] chunk = _chunks[id >> ChunkBits] ?? AllocateChunk(id >> ChunkBits);
            return ref chunk[id & (ChunkSize - 1)];
        }
    }

    private long[] AllocateChunk(long index)
    {
        var fresh = new long[ChunkSize];
        return Interlocked.CompareExchange(ref _chunks[index], fresh, null) ?? fresh;
    }
}
