using System.Threading;

namespace KeyValueStore.LoadTest.Running;

/// <summary>Hands out the ids 0 .. count - 1 to the loading workers, each exactly once.</summary>
internal sealed class LoadCursor
{
    private readonly long _count;
    private long _next = -1;

    public LoadCursor(long count)
    {
        _count = count;
    }

    public bool TryTake(out long id)
    {
        id = Interlocked.Increment(ref _next);
        return id < _count;
    }
}
