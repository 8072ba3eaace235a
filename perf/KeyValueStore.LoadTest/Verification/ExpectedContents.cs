using System.Threading;

namespace KeyValueStore.LoadTest.Verification;

/// <summary>
/// The model of what the store should hold: per record id, the highest version issued to a writer and
/// the highest version whose write completed. Version 0 means never written; the load writes version
/// 1; every later write of an id issues the next version.
/// </summary>
/// <remarks>
/// Kept in every run, not only with --verify: it numbers the versions that go into the values, and
/// workload D reads only inserts that completed. With --verify, writes of one id are serialised
/// (<see cref="KeyLocks"/>), so at most one version is in flight per id. A read that starts after
/// <see cref="Completed"/> was lo and ends before <see cref="Issued"/> moved past hi must then see a
/// version in [lo, hi]: it may overlap at most the writes of versions lo + 1 .. hi.
/// </remarks>
internal sealed class ExpectedContents
{
    private readonly VersionTable _issued = new();
    private readonly VersionTable _completed = new();

    /// <summary>Issues the next version of <paramref name="id"/>, before the write starts.</summary>
    public long BeginWrite(long id) => Interlocked.Increment(ref _issued[id]);

    /// <summary>Records that the write of <paramref name="version"/> finished (acknowledged by the backend).</summary>
    /// <remarks>The interlocked update is a full fence, which <see cref="Workloads.KeySpace"/> relies on to see completed inserts.</remarks>
    public void EndWrite(long id, long version)
    {
        ref long completed = ref _completed[id];
        long seen = Volatile.Read(ref completed);
        while (seen < version)
        {
            long previous = Interlocked.CompareExchange(ref completed, version, seen);
            if (previous == seen)
            {
                return;
            }

            seen = previous;
        }
    }

    /// <summary>The highest version whose write completed; read before a read starts.</summary>
    public long Completed(long id) => Volatile.Read(ref _completed[id]);

    /// <summary>The highest version issued; read after a read ends.</summary>
    public long Issued(long id) => Volatile.Read(ref _issued[id]);
}
