using System.Collections.Generic;
using System.Reflection;
using FASTER.core;

namespace KeyValueStore.Engine;

/// <summary>
/// What a FasterKV built by the caller must not have for the store to run on it (<see cref="StoreOpener.OpenOnSupplied"/>),
/// each problem worded for <see cref="InvalidStoreOptionsException"/>.
/// </summary>
/// <remarks>
/// <para>
/// A read cache: a read the cache answers reports no address in the log (FASTER 2.6.5 hands the reader
/// <c>kInvalidAddress</c>), and compaction keeps a scanned record only when a read of its key finds that very record, so
/// every key the cache held looked superseded, was dropped, and was lost once the cache let it go. Comparing the cache's
/// value instead left keys lost or missed by reads in a fifth of the runs of a concurrent test, with no fault in the
/// store's own steps found; FASTER's public API has no read that skips the cache (docs/benchmarks.md, "FASTER's read
/// cache for hot keys, measured").
/// </para>
/// <para>
/// No record locking (<see cref="ConcurrencyControlMode.None"/>): the store's key stripes order the writes of a key, not
/// its reads, which rely on FASTER's record locks; without them a read beside an update in place of the same key copied
/// out a mix of both values (111,552 such reads in 200,000 updates of a 4,000-byte value beside two readers). FASTER 2.6.5
/// exposes the mode only internally, so it is read by reflection; when the member is not there (another FASTER version),
/// the check passes and <c>SuppliedFasterKVCheckTests</c> fails, so that the upgrade finds it.
/// </para>
/// </remarks>
internal static class SuppliedFasterKVCheck
{
    private static readonly PropertyInfo? IsLocking =
        typeof(FasterKV<SpanByte, SpanByte>).GetProperty("IsLocking", BindingFlags.Instance | BindingFlags.NonPublic);

    /// <summary>Gets whether this FASTER version lets the check see the locking mode.</summary>
    public static bool SeesLockingMode => IsLocking?.PropertyType == typeof(bool);

    /// <summary>The problems <paramref name="fasterKV"/> has; empty when the store can run on it.</summary>
    public static List<string> ProblemsOf(FasterKV<SpanByte, SpanByte> fasterKV)
    {
        var problems = new List<string>();
        if (fasterKV.ReadCache is not null)
        {
            problems.Add($"The pre-built FasterKV has a read cache ({nameof(LogSettings)}.{nameof(LogSettings.ReadCacheSettings)}). A read the cache answers names no record of the log, so the store's compaction could not tell a key the cache holds from one written again, and would lose it. Build the FasterKV without {nameof(LogSettings.ReadCacheSettings)}.");
        }

        if (SeesLockingMode && IsLocking!.GetValue(fasterKV) is false)
        {
            problems.Add($"The pre-built FasterKV locks no record ({nameof(ConcurrencyControlMode)}.{nameof(ConcurrencyControlMode.None)}), so a read beside a write of the same key can return a mix of both values. Build it with {nameof(ConcurrencyControlMode)}.{nameof(ConcurrencyControlMode.LockTable)} (FASTER's default) or {nameof(ConcurrencyControlMode.RecordIsolation)}.");
        }

        return problems;
    }
}
