using System;

namespace KeyValueStore;

/// <summary>
/// Thrown by a write when the store can no longer make writes durable: its write-ahead log failed to write (an I/O
/// error, a full disk). From the first failure on, the store refuses every write, so that it never acknowledges one the
/// log may not hold; reads go on. Dispose the store and open it again once the cause is fixed: recovery restores every
/// write acknowledged before the failure.
/// </summary>
public sealed class StoreFaultedException : KeyValueStoreException
{
    internal StoreFaultedException(string what, Exception innerException)
        : base($"The store's {what} failed ({innerException.GetBaseException().Message}), so the store refuses writes from now on: it will not acknowledge "
            + "a write it may be unable to recover. Every write acknowledged before the failure is durable. Free disk space or fix the disk, "
            + "then dispose the store and open it again; reads work until then.", innerException)
    {
    }
}
