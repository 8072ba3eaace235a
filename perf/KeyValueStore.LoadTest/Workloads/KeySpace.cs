using System.Threading;
using KeyValueStore.LoadTest.Verification;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>
/// Which record ids exist. The load writes ids 0 .. records - 1; inserts (workload D) take the next
/// ids after that. Reads and updates pick among <see cref="Readable"/>: the ids below the first
/// insert that has not completed yet, so an operation never targets a key whose insert is still in
/// flight (YCSB keeps the same "acknowledged" frontier). Thread-safe.
/// </summary>
internal sealed class KeySpace
{
    private readonly ExpectedContents _model;
    private long _nextInsert;
    private long _readable;

    public KeySpace(long records, ExpectedContents model)
    {
        _model = model;
        _nextInsert = records;
        _readable = records;
    }

    /// <summary>Gets the count of ids, from 0, whose first write has completed (for ids beyond the load).</summary>
    public long Readable => Volatile.Read(ref _readable);

    /// <summary>Gets one past the highest id ever handed out.</summary>
    public long Issued => Volatile.Read(ref _nextInsert);

    /// <summary>Hands out the next never-used id.</summary>
    public long ReserveInsert() => Interlocked.Increment(ref _nextInsert) - 1;

    /// <summary>
    /// Called after an insert completed (after <see cref="ExpectedContents.EndWrite"/>):
    /// moves the frontier over every id whose insert has completed. Inserts complete out of order, so
    /// whichever inserter finds the next id completed moves the frontier. The model's interlocked
    /// update before this call and the interlocked move here are full fences: of two inserters
    /// finishing neighbouring ids, at least one sees the other's completion, so the frontier never stalls.
    /// </summary>
    public void InsertCompleted()
    {
        long frontier = Volatile.Read(ref _readable);
        while (_model.Completed(frontier) > 0)
        {
            Interlocked.CompareExchange(ref _readable, frontier + 1, frontier);
            frontier = Volatile.Read(ref _readable);
        }
    }
}
