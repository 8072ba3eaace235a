using System;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>
/// Every record and operation count of the peer benchmarks, in one place. <c>KVSTORE_BENCH_SIZE=ci</c> divides the
/// operation counts by <see cref="CiDivisor"/> and shrinks the data sets, so that CI's dry run of every benchmark takes
/// seconds; unset (or <c>full</c>), the counts are the ones docs/benchmarks.md reports.
/// </summary>
/// <remarks>
/// BenchmarkDotNet takes <c>OperationsPerInvoke</c> from an attribute, which must be a constant: the <c>const</c> fields
/// here are the full run's counts, and a benchmark performs <see cref="Ops"/> of its constant. Under the CI size the
/// per-operation figures are therefore not meaningful (BenchmarkDotNet still divides by the full count); CI checks that
/// every benchmark runs, not how fast.
/// </remarks>
internal static class BenchSize
{
    /// <summary>The environment variable that selects the size: <c>ci</c> or <c>full</c> (the default).</summary>
    public const string Variable = "KVSTORE_BENCH_SIZE";

    /// <summary>How much smaller operation counts are under the CI size.</summary>
    public const int CiDivisor = 500;

    // Jering LowMemory: the reference's own counts.
    public const int JeringInserts = 350_000;
    public const int JeringReads = 75_000;

    // Smaller counts for LiteDB's single-write inserts (about a thousand per second here), with ours and SQLite beside it.
    public const int JeringSmallInserts = 10_000;
    public const int LlfioSmallRecords = 5_000;

    // LLFIO: the reference's own count, 1,000,000 records.
    public const int LlfioRecords = 1_000_000;
    public const int LlfioDurableRecords = 1_000;

    // Larger than memory: records of 1 KB, ten times the store's 16 MB of log memory.
    public const int BeyondMemoryReads = 50_000;

    // Large values: 64 KB each.
    public const int LargeValueOperations = 1_000;

    // YCSB A and B over a loaded set of 1 KB records.
    public const int YcsbOperations = 32_000;

    // Deletes: records loaded before each iteration, then all deleted.
    public const int DeleteOperations = 20_000;

    // Durable writes: 64 writers.
    public const int DurableWriters = 64;
    public const int DurableOperations = 6_400;
    public const int DurableBatchSize = 16;

    /// <summary>Gets whether the CI size is selected.</summary>
    public static bool IsCi { get; } = string.Equals(Environment.GetEnvironmentVariable(Variable), "ci", StringComparison.OrdinalIgnoreCase);

    /// <summary>The operations a benchmark performs for its full-run constant: the constant itself, or a small fraction of it under CI (at least 64).</summary>
    public static int Ops(int fullCount) => IsCi ? Math.Max(64, fullCount / CiDivisor) : fullCount;

    /// <summary>Records of 1 KB for the larger-than-memory workload: ten times <see cref="BeyondMemoryLogBytes"/>.</summary>
    public static int BeyondMemoryRecords => (int)(10 * BeyondMemoryLogBytes / 1024);

    /// <summary>The FASTER stores' log memory for the larger-than-memory workload: 16 MB, or 64 KB under CI.</summary>
    public static long BeyondMemoryLogBytes => IsCi ? 1L << 16 : 1L << 24;

    /// <summary>Records loaded for YCSB A and B (1 KB each).</summary>
    public static int YcsbRecords => IsCi ? 500 : 50_000;

    /// <summary>Records loaded for the large-value workload (64 KB each).</summary>
    public static int LargeValueRecords => Ops(LargeValueOperations);
}
