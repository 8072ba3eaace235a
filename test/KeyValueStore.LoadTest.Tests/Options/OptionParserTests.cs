using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Tests.Options;

public class OptionParserTests
{
    [Fact]
    public void NoArguments_GiveTheDocumentedDefaults()
    {
        LoadTestOptions options = OptionParser.Parse([]);

        Assert.Equal(8, options.Threads);
        Assert.Equal(10, options.Seconds);
        Assert.Equal(100_000, options.Records);
        Assert.Equal(256, options.ValueSize);
        Assert.Equal(ValueFill.Random, options.ValueFill);
        Assert.Same(Workload.A, options.Workload);
        Assert.Equal(KeyDistribution.Zipfian, options.Distribution);
        Assert.Equal("typed", options.Backend.Name); // The public API: a run with no options measures the product.
        Assert.Equal(64L << 20, options.MemorySizeBytes);
        Assert.Null(options.Directory);
        Assert.Null(options.JsonPath);
        Assert.False(options.Verify);
        Assert.Equal(1, options.Seed);
        Assert.Equal(1, options.BatchSize);
        Assert.Null(options.Endpoint);
        Assert.False(options.ShowHelp);
    }

    [Fact]
    public void EveryOption_IsParsed_InBothSpellings()
    {
        LoadTestOptions spaced = OptionParser.Parse([
            "--threads", "3", "--seconds", "7", "--records", "5000", "--value-size", "1k", "--workload", "f",
            "--distribution", "Uniform", "--backend", "SQLITE", "--memory-size", "1g", "--dir", "/some/dir",
            "--json", "out.json", "--verify", "--seed", "-42",
        ]);
        LoadTestOptions joined = OptionParser.Parse([
            "--threads=3", "--seconds=7", "--records=5000", "--value-size=1k", "--workload=f",
            "--distribution=Uniform", "--backend=SQLITE", "--memory-size=1g", "--dir=/some/dir",
            "--json=out.json", "--verify", "--seed=-42",
        ]);

        foreach (LoadTestOptions options in new[] { spaced, joined })
        {
            Assert.Equal(3, options.Threads);
            Assert.Equal(7, options.Seconds);
            Assert.Equal(5000, options.Records);
            Assert.Equal(1024, options.ValueSize);
            Assert.Same(Workload.F, options.Workload);
            Assert.Equal(KeyDistribution.Uniform, options.Distribution);
            Assert.Equal("sqlite", options.Backend.Name);
            Assert.Equal(1L << 30, options.MemorySizeBytes);
            Assert.Equal("/some/dir", options.Directory);
            Assert.Equal("out.json", options.JsonPath);
            Assert.True(options.Verify);
            Assert.Equal(-42, options.Seed);
        }
    }

    [Fact]
    public void ValueFill_IsParsed()
    {
        Assert.Equal(ValueFill.Random, OptionParser.Parse(["--value-fill", "random"]).ValueFill);
        Assert.Equal(ValueFill.Compressible, OptionParser.Parse(["--value-fill=compressible"]).ValueFill);
    }

    [Fact]
    public void WorkloadD_DefaultsToTheLatestDistribution_AsInYcsb_UnlessOneIsGiven()
    {
        Assert.Equal(KeyDistribution.Latest, OptionParser.Parse(["--workload", "D"]).Distribution);
        Assert.Equal(KeyDistribution.Zipfian, OptionParser.Parse(["--workload", "D", "--distribution", "zipfian"]).Distribution);
    }

    [Fact]
    public void Help_IsRecognised_WhateverElseIsGiven()
    {
        Assert.True(OptionParser.Parse(["--help"]).ShowHelp);
        Assert.True(OptionParser.Parse(["--threads", "2", "--help"]).ShowHelp);
    }

    [Fact]
    public void ASmallMemorySize_IsAcceptedForBackendsThatIgnoreIt()
    {
        // 64k cannot hold two FASTER pages of a 1 MiB record, but the memory backend has no pages.
        LoadTestOptions options = OptionParser.Parse(["--backend", "memory", "--memory-size", "64k", "--value-size", "1m"]);

        Assert.Equal(1 << 20, options.ValueSize);
    }

    [Theory]
    [InlineData("1", "W", 1)]
    [InlineData("65535", "W", 65535)]
    [InlineData("100", "A", 100)]
    [InlineData("100", "B", 100)]
    [InlineData("100", "D", 100)]
    [InlineData("1", "C", 1)]
    [InlineData("1", "F", 1)]
    public void BatchSize_From1To65535_IsAccepted_WithAWorkloadThatUpdatesOrInserts(string text, string workload, int expected)
    {
        Assert.Equal(expected, OptionParser.Parse(["--batch-size", text, "--workload", workload]).BatchSize);
        Assert.Equal(expected, OptionParser.Parse([$"--batch-size={text}", $"--workload={workload}"]).BatchSize);
    }

    [Theory]
    [InlineData("on", true)]
    [InlineData("off", false)]
    public void Compaction_OnOrOff_IsAccepted_AndIsOnByDefault(string text, bool expected)
    {
        Assert.Equal(expected, OptionParser.Parse(["--compaction", text]).Compaction);
        Assert.True(OptionParser.Parse([]).Compaction);
    }

    [Theory]
    [InlineData("200m", 200L << 20)]
    [InlineData("0", 0)]
    public void DiskBudget_IsASize_AndNoneByDefault(string text, long expected)
    {
        Assert.Equal(expected, OptionParser.Parse(["--disk-budget", text]).DiskBudgetBytes);
        Assert.Equal(0, OptionParser.Parse([]).DiskBudgetBytes);
    }

    [Theory]
    [InlineData("0.9", 0.9)]
    [InlineData("0", 0.0)]
    [InlineData("1", 1.0)]
    public void MutableFraction_IsAFractionFromZeroToOne_AndTheStoresDefaultWhenLeftOut(string text, double expected)
    {
        Assert.Equal(expected, OptionParser.Parse(["--mutable-fraction", text]).MutableFraction);
        Assert.Null(OptionParser.Parse([]).MutableFraction);
    }

    [Theory]
    [InlineData("4m", "16m", 4L << 20)]
    [InlineData("64k", "64k", 64L << 10)]
    public void SegmentSize_IsAPowerOfTwo_AndTheLoadTestsWhenLeftOut(string text, string memorySize, long expected)
    {
        Assert.Equal(expected, OptionParser.Parse(["--segment-size", text, "--memory-size", memorySize]).SegmentSizeBytes);
        Assert.Null(OptionParser.Parse([]).SegmentSizeBytes);
    }

    [Theory]
    [InlineData("1.5", 1.5)]
    [InlineData("3", 3.0)]
    public void CompactionRatio_IsANumber_AndTheStoresDefaultWhenLeftOut(string text, double expected)
    {
        Assert.Equal(expected, OptionParser.Parse(["--compaction-ratio", text]).CompactionRatio);
        Assert.Null(OptionParser.Parse([]).CompactionRatio);
    }

    [Theory]
    [InlineData("1", 1)]
    [InlineData("50000", 50_000)]
    [InlineData("1000000000", 1_000_000_000)]
    public void Rate_IsOperationsPerSecond_AndUnpacedByDefault(string text, long expected)
    {
        Assert.Equal(expected, OptionParser.Parse(["--rate", text]).Rate);
        Assert.Null(OptionParser.Parse([]).Rate);
    }

    [Theory]
    [InlineData("0", 0)]
    [InlineData("64", 64)]
    [InlineData("1073741824", 1L << 30)]
    public void MaxAllocatedPerOp_IsBytesPerOperation_AndNoLimitByDefault(string text, long expected)
    {
        Assert.Equal(expected, OptionParser.Parse(["--max-allocated-per-op", text]).MaxAllocatedBytesPerOperation);
        Assert.Null(OptionParser.Parse([]).MaxAllocatedBytesPerOperation);
    }

    [Theory]
    [InlineData("typed-commit")]
    [InlineData("faster-commit")]
    public void WalDir_IsTaken_ByTheCommitModeBackends(string backend)
    {
        Assert.Equal("/tmp/wal", OptionParser.Parse(["--wal-dir", "/tmp/wal", "--backend", backend]).WriteAheadLogDirectory);
        Assert.Null(OptionParser.Parse(["--backend", backend]).WriteAheadLogDirectory);
    }

    [Theory]
    [InlineData("127.0.0.1:6379")]
    [InlineData("cache.internal:6380")]
    [InlineData("[::1]:6379")]
    public void Endpoint_IsTaken_ByTheRedisBackend_InBothSpellings(string endpoint)
    {
        Assert.Equal(endpoint, OptionParser.Parse(["--backend", "redis", "--endpoint", endpoint]).Endpoint);
        Assert.Equal(endpoint, OptionParser.Parse(["--backend=redis", $"--endpoint={endpoint}"]).Endpoint);
    }

    [Fact]
    public void Garnet_StartsItsOwnServer_AndNeedsNoEndpoint()
    {
        LoadTestOptions options = OptionParser.Parse(["--backend", "garnet"]);

        Assert.Equal("garnet", options.Backend.Name);
        Assert.Null(options.Endpoint);
    }

    public static TheoryData<string[], string[]> BadInput => new()
    {
        // The arguments, then fragments the message must contain: the option, the value, what is allowed.
        { ["--thread", "4"], ["Unknown option '--thread'", "Did you mean '--threads'?"] },
        { ["--frobnicate"], ["Unknown option '--frobnicate'"] },
        { ["-h"], ["Unknown option '-h'", "--help"] },
        { ["fast"], ["Unexpected argument 'fast'"] },
        { ["--threads"], ["--threads needs a value"] },
        { ["--threads", "--verify"], ["--threads needs a value"] },
        { ["--threads", "four"], ["--threads", "1 to 1024", "'four'"] },
        { ["--threads", "0"], ["--threads", "1 to 1024", "'0'"] },
        { ["--threads", "1025"], ["--threads", "1 to 1024", "'1025'"] },
        { ["--threads", "2.5"], ["--threads", "1 to 1024", "'2.5'"] },
        { ["--threads", ""], ["--threads", "1 to 1024", "''"] },
        { ["--seconds", "0"], ["--seconds", "1 to 86400", "'0'"] },
        { ["--seconds", "86401"], ["--seconds", "1 to 86400", "'86401'"] },
        { ["--records", "0"], ["--records", "1 to 100000000", "'0'"] },
        { ["--records", "100000001"], ["--records", "1 to 100000000", "'100000001'"] },
        { ["--records", "99999999999999999999"], ["--records", "1 to 100000000", "'99999999999999999999'"] },
        { ["--value-size", "15"], ["--value-size", "16 to 1m", "'15'"] },
        { ["--value-size", "2m"], ["--value-size", "16 to 1m", "'2m'"] },
        { ["--value-size", "12x"], ["--value-size", "16 to 1m", "'12x'"] },
        { ["--value-size", "-1"], ["--value-size", "16 to 1m", "'-1'"] },
        { ["--value-fill", "zeros"], ["--value-fill must be random or compressible", "'zeros'"] },
        { ["--workload", "E"], ["--workload", "A, B, C, D, F, W", "'E'", "range scans"] },
        { ["--workload", "Z"], ["--workload", "A, B, C, D, F, W", "'Z'"] },
        { ["--distribution", "hotspot"], ["--distribution", "uniform, zipfian, latest", "'hotspot'"] },
        { ["--backend", "lightningdb"], ["--backend", "typed, typed-checkpoint, typed-commit, faster, faster-checkpoint, faster-commit, memory, sqlite, sqlite-full, litedb, rocksdb, rocksdb-sync, zonetree, raw-faster, garnet, redis", "'lightningdb'"] },
        { ["--memory-size", "100m"], ["--memory-size", "power of two from 64k to 1t", "'100m'"] },
        { ["--memory-size", "32k"], ["--memory-size", "power of two from 64k to 1t", "'32k'"] },
        { ["--memory-size", "2t"], ["--memory-size", "power of two from 64k to 1t", "'2t'"] },
        { ["--memory-size", "lots"], ["--memory-size", "power of two from 64k to 1t", "'lots'"] },
        { ["--memory-size", "64k", "--value-size", "1m"], ["--memory-size 64k is too small for --value-size 1048576", "Use --memory-size 4m or more"] },
        { ["--dir", ""], ["--dir needs a directory path", "''"] },
        { ["--json", " "], ["--json needs a file path", "' '"] },
        { ["--seed", "x"], ["--seed", "64-bit integer", "'x'"] },
        { ["--batch-size", "0"], ["--batch-size", "1 to 65535", "'0'"] },
        { ["--batch-size", "65536"], ["--batch-size", "1 to 65535", "'65536'"] },
        { ["--batch-size", "-5"], ["--batch-size", "1 to 65535", "'-5'"] },
        { ["--batch-size", "ten"], ["--batch-size", "1 to 65535", "'ten'"] },
        { ["--batch-size", "100", "--workload", "C"], ["--batch-size 100", "workload C", "issues none", "--batch-size 1"] },
        { ["--batch-size", "2", "--workload", "F"], ["--batch-size 2", "workload F", "read-modify-writes stay single"] },
        { ["--rate", "0"], ["--rate", "1 to 1000000000", "'0'"] },
        { ["--rate", "-5"], ["--rate", "1 to 1000000000", "'-5'"] },
        { ["--rate", "1000000001"], ["--rate", "1 to 1000000000", "'1000000001'"] },
        { ["--rate", "2.5"], ["--rate", "1 to 1000000000", "'2.5'"] },
        { ["--rate", "fast"], ["--rate", "1 to 1000000000", "'fast'"] },
        { ["--max-allocated-per-op", "-1"], ["--max-allocated-per-op", "0 to 1073741824", "'-1'"] },
        { ["--max-allocated-per-op", "1073741825"], ["--max-allocated-per-op", "0 to 1073741824", "'1073741825'"] },
        { ["--max-allocated-per-op", "1.5"], ["--max-allocated-per-op", "0 to 1073741824", "'1.5'"] },
        { ["--max-allocated-per-op", "lots"], ["--max-allocated-per-op", "0 to 1073741824", "'lots'"] },
        { ["--compaction", "sometimes"], ["--compaction must be on or off", "'sometimes'"] },
        { ["--disk-budget", "lots"], ["--disk-budget must be a size", "'lots'"] },
        { ["--mutable-fraction", "1.5"], ["--mutable-fraction must be a fraction from 0 to 1", "'1.5'"] },
        { ["--mutable-fraction", "-0.1"], ["--mutable-fraction must be a fraction from 0 to 1", "'-0.1'"] },
        { ["--mutable-fraction", "most"], ["--mutable-fraction must be a fraction from 0 to 1", "'most'"] },
        { ["--segment-size", "3m"], ["--segment-size must be a power of two from 64k to 1t", "'3m'"] },
        { ["--segment-size", "32k"], ["--segment-size must be a power of two from 64k to 1t", "'32k'"] },
        { ["--segment-size", "64k", "--memory-size", "16m", "--value-size", "1k"], ["--segment-size 64k is smaller than a log page (2m", "Use --segment-size 2m or more"] },
        { ["--compaction-ratio", "twice"], ["--compaction-ratio must be a number of log bytes per live byte", "'twice'"] },
        { ["--compaction-ratio", "NaN"], ["--compaction-ratio must be a number of log bytes per live byte", "'NaN'"] },
        { ["--wal-dir", ""], ["--wal-dir needs a directory path", "''"] },
        { ["--wal-dir", "/tmp/wal", "--backend", "typed-checkpoint"], ["--wal-dir", "typed-checkpoint backend keeps none", "typed-commit or faster-commit"] },
        { ["--backend", "redis"], ["redis backend", "needs its address", "--endpoint host:port", "--backend garnet"] },
        { ["--endpoint", "127.0.0.1:6379"], ["--endpoint", "typed backend connects to none", "--backend redis"] },
        { ["--backend", "garnet", "--endpoint", "127.0.0.1:6379"], ["--endpoint", "garnet backend connects to none"] },
        { ["--backend", "redis", "--endpoint", "localhost"], ["--endpoint must be host:port", "'localhost'"] },
        { ["--backend", "redis", "--endpoint", ":6379"], ["--endpoint must be host:port", "':6379'"] },
        { ["--backend", "redis", "--endpoint", "localhost:0"], ["--endpoint must be host:port", "1 to 65535", "'localhost:0'"] },
        { ["--backend", "redis", "--endpoint", "localhost:65536"], ["--endpoint must be host:port", "'localhost:65536'"] },
        { ["--backend", "redis", "--endpoint", "localhost:port"], ["--endpoint must be host:port", "'localhost:port'"] },
        { ["--backend", "redis", "--endpoint", "::1:6379"], ["--endpoint must be host:port", "'::1:6379'"] },
        { ["--backend", "redis", "--endpoint", "localhost:6379,password=x"], ["--endpoint must be host:port", "'localhost:6379,password=x'"] },
        { ["--backend", "redis", "--endpoint", ""], ["--endpoint must be host:port", "''"] },
        { ["--verify=yes"], ["--verify takes no value", "'--verify=yes'"] },
        { ["--threads", "2", "--threads=3"], ["--threads is given twice", "'2'", "'3'"] },
    };

    [Theory]
    [MemberData(nameof(BadInput))]
    public void BadInput_IsRejected_WithAMessageNamingTheOptionTheValueAndTheAllowedRange(string[] args, string[] expectedFragments)
    {
        InvalidOptionException error = Assert.Throws<InvalidOptionException>(() => OptionParser.Parse(args));

        foreach (string fragment in expectedFragments)
        {
            Assert.Contains(fragment, error.Message, System.StringComparison.Ordinal);
        }
    }
}
