using System.Threading;

namespace KeyValueStore.Tests.Support;

/// <summary>A maximum that concurrent workers raise without a lock: tests use it to record the worst moment they saw.</summary>
internal static class ConcurrentMax
{
    /// <summary>Raises <paramref name="most"/> to <paramref name="value"/> if that is larger.</summary>
    public static void RaiseTo(ref long most, long value)
    {
        long seen = Volatile.Read(ref most);
        while (value > seen)
        {
            long before = Interlocked.CompareExchange(ref most, value, seen);
            if (before == seen)
            {
                return;
            }

            seen = before;
        }
    }
}
