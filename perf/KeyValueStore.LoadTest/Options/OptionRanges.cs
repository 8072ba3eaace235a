namespace KeyValueStore.LoadTest.Options;

/// <summary>The allowed range of each numeric option, shared by the parser's checks, its messages and the usage.</summary>
internal static class OptionRanges
{
    public const int MinThreads = 1;
    public const int MaxThreads = 1024;
    public const int MinSeconds = 1;
    public const int MaxSeconds = 86_400;
    public const int MinWarmupSeconds = 0;
    public const long MinRecords = 1;
    public const long MaxRecords = 100_000_000;
    public const int MinValueSize = 16; // The record id and version every value starts with.
    public const int MaxValueSize = 1 << 20;
    public const long MinMemorySize = 64L << 10;
    public const long MaxMemorySize = 1L << 40;
    public const int MinBatchSize = 1;
    public const int MaxBatchSize = BatchTooLargeException.MaxWrites; // The most one atomic batch of the store may hold.
    public const long MinRate = 1;
    public const long MaxRate = 1_000_000_000;
    public const long MinMaxAllocated = 0;
    public const long MaxMaxAllocated = 1L << 30;
    public const int MinPort = 1;
    public const int MaxPort = 65_535;

    public const string Threads = "1 to 1024";
    public const string Seconds = "1 to 86400";
    public const string WarmupSeconds = "0 to 86400";
    public const string Records = "1 to 100000000";
    public const string ValueSize = "16 to 1m (1048576)";
    public const string MemorySize = "a power of two from 64k to 1t";
    public const string BatchSize = "1 to 65535";
    public const string Port = "1 to 65535";
    public const string Rate = "1 to 1000000000";
    public const string MaxAllocated = "0 to 1073741824";
}
