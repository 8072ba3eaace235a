using System;

namespace KeyValueStore;

/// <summary>
/// Thrown once the store's disk has failed (an I/O error, a full disk) under its segment files or its write-ahead log.
/// From the first failure on, the store refuses every operation: it never acknowledges a write its files may not hold,
/// and never shows a write that was not acknowledged. Dispose the store and open it again once the cause is fixed:
/// recovery restores every write acknowledged before the failure.
/// </summary>
public sealed class StoreFaultedException : KeyValueStoreException
{
    internal StoreFaultedException(string what, Exception innerException)
        : base($"The store's {what} failed ({innerException.GetBaseException().Message}), so the store refuses every operation from now on: it will not "
            + "acknowledge a write it may be unable to recover, nor show one it did not acknowledge. Every write acknowledged before the failure is durable. "
            + "Free disk space or fix the disk, then dispose the store and open it again.", innerException)
    {
    }
}
