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

    private StoreFaultedException(StoreFaultedException fault, string addendum)
        : base(fault.Message + addendum, fault.InnerException)
    {
    }

    /// <summary>
    /// The fault as told to a Commit-mode delete that was committed to the write-ahead log before the store faulted, and
    /// not applied: whether its key existed was never learned, so it cannot be acknowledged, yet a reopen replays it.
    /// </summary>
    internal static StoreFaultedException ForCommittedDelete(StoreFaultedException fault) =>
        new(fault, " This delete was committed to the write-ahead log before the failure, so reopening the store applies it: the key is then gone.");
}
