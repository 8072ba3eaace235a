using KeyValueStore.Tests.Support;
using System;
using System.IO;
using KeyValueStore.Storage;

namespace KeyValueStore.Tests.Storage;

public class StoreSettingsValidatorTests
{
    [Fact]
    public void Defaults_MatchTheReferenceAndAreValid()
    {
        var options = new MixedStorageKVStoreOptions();

        StoreSettings settings = StoreSettingsValidator.Validate(options);

        Assert.Equal(1L << 20, settings.IndexNumBuckets);
        Assert.Equal(25, settings.PageSizeBits);
        Assert.Equal(26, settings.MemorySizeBits);
        Assert.Equal(28, settings.SegmentSizeBits);
        Assert.True(settings.DeleteLogOnClose);
        Assert.Equal(Path.Combine(Path.GetTempPath(), "FasterLogs"), settings.LogDirectory);
        Assert.True(Guid.TryParse(settings.LogFileNamePrefix, out _));
    }

    [Fact]
    public void ValidateOptions_RefusesWhatOpeningWould_ListingEveryProblem_WithoutCreatingTheDirectory()
    {
        using var temp = new TempDirectory();
        string directory = Path.Combine(temp.Path, "not-yet");
        var options = new MixedStorageKVStoreOptions { LogDirectory = directory, IndexNumBuckets = 1000, SessionPoolSize = 0 };

        var exception = Assert.Throws<InvalidStoreOptionsException>(() => MixedStorageKVStore.ValidateOptions(options));

        Assert.Equal(2, exception.Problems.Count);
        Assert.False(Directory.Exists(directory));
        MixedStorageKVStore.ValidateOptions(new MixedStorageKVStoreOptions { LogDirectory = directory });
        Assert.False(Directory.Exists(directory));
    }

    [Fact]
    public void Validate_SeveralInvalidOptions_ListsEveryProblemInOneException()
    {
        var options = new MixedStorageKVStoreOptions
        {
            IndexNumBuckets = 1000,
            PageSizeBits = 12,
            MemorySizeBits = 12,
            SegmentSizeBits = 11,
            SessionPoolSize = 0,
            LogFileNamePrefix = "../escape",
        };

        var exception = Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(options));

        Assert.Equal(5, exception.Problems.Count);
        Assert.Contains(exception.Problems, p => p.Contains("IndexNumBuckets is 1000", StringComparison.Ordinal));
        Assert.Contains(exception.Problems, p => p.Contains("MemorySizeBits is 12", StringComparison.Ordinal) && p.Contains("use 13", StringComparison.Ordinal));
        Assert.Contains(exception.Problems, p => p.Contains("SegmentSizeBits is 11", StringComparison.Ordinal) && p.Contains("use 12", StringComparison.Ordinal));
        Assert.Contains(exception.Problems, p => p.Contains("SessionPoolSize is 0", StringComparison.Ordinal));
        Assert.Contains(exception.Problems, p => p.Contains("LogFileNamePrefix is '../escape'", StringComparison.Ordinal));
        foreach (string problem in exception.Problems)
        {
            Assert.Contains(problem, exception.Message, StringComparison.Ordinal);
        }
    }

    [Theory]
    [InlineData(8)]
    [InlineData(31)]
    public void Validate_PageSizeOutOfRange_NamesTheOptionAndTheRange(int pageSizeBits)
    {
        var options = new MixedStorageKVStoreOptions { PageSizeBits = pageSizeBits };

        var exception = Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(options));

        string problem = Assert.Single(exception.Problems);
        Assert.Contains($"PageSizeBits is {pageSizeBits}", problem, StringComparison.Ordinal);
        Assert.Contains("9", problem, StringComparison.Ordinal);
        Assert.Contains("30", problem, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("a/b")]
    [InlineData("a\\b")]
    [InlineData("..")]
    [InlineData("x..y")]
    public void Validate_PrefixThatIsNotAPlainFileName_IsRejected(string prefix)
    {
        var options = new MixedStorageKVStoreOptions { LogFileNamePrefix = prefix };

        var exception = Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(options));

        Assert.Contains("LogFileNamePrefix", Assert.Single(exception.Problems), StringComparison.Ordinal);
    }

    [Fact]
    public void OpeningAStore_WithInvalidOptions_CreatesNothingOnDisk()
    {
        using var temp = new TempDirectory();
        string logDirectory = Path.Combine(temp.Path, "not-yet-created");
        var options = new MixedStorageKVStoreOptions { LogDirectory = logDirectory, PageSizeBits = 40 };

        Assert.Throws<InvalidStoreOptionsException>(() => StoreFactory.Open(options));

        Assert.False(Directory.Exists(logDirectory));
    }

    [Fact]
    public void Validate_DurableStoreWithoutItsHome_ListsEveryDurabilityProblem()
    {
        var options = new MixedStorageKVStoreOptions { Durability = DurabilityMode.Commit, CheckpointIntervalMS = 0 };

        var exception = Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(options));

        Assert.Equal(3, exception.Problems.Count);
        Assert.Contains(exception.Problems, p => p.Contains(nameof(MixedStorageKVStoreOptions.LogDirectory), StringComparison.Ordinal));
        Assert.Contains(exception.Problems, p => p.Contains(nameof(MixedStorageKVStoreOptions.DeleteLogOnClose), StringComparison.Ordinal) && p.Contains("false", StringComparison.Ordinal));
        Assert.Contains(exception.Problems, p => p.Contains(nameof(MixedStorageKVStoreOptions.CheckpointIntervalMS), StringComparison.Ordinal));
    }

    [Fact]
    public void Validate_UndefinedDurability_IsRejectedNamingTheModes()
    {
        var options = new MixedStorageKVStoreOptions { Durability = (DurabilityMode)7 };

        var exception = Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(options));

        Assert.Contains(exception.Problems, p => p.Contains("is 7", StringComparison.Ordinal) && p.Contains(nameof(DurabilityMode.Commit), StringComparison.Ordinal));
    }

    [Fact]
    public void Validate_DurableStore_GetsAStablePrefix_AndScratchStoresARandomOne()
    {
        using var temp = new TempDirectory();
        var durable = new MixedStorageKVStoreOptions { Durability = DurabilityMode.Checkpoint, LogDirectory = temp.Path, DeleteLogOnClose = false };

        Assert.Equal("store", StoreSettingsValidator.Validate(durable).LogFileNamePrefix);
        Assert.Equal(TimeSpan.FromMilliseconds(5_000), StoreSettingsValidator.Validate(durable).CheckpointInterval);
        Assert.NotEqual(
            StoreSettingsValidator.Validate(new MixedStorageKVStoreOptions()).LogFileNamePrefix,
            StoreSettingsValidator.Validate(new MixedStorageKVStoreOptions()).LogFileNamePrefix);
    }

    [Fact]
    public void Validate_ALogDiskBudgetSmallerThanTheLogCanBeKeptTo_SaysHowLargeItMustBe()
    {
        // 64 MB of memory and 256 MB segments: at least two segments, 512 MB.
        var options = new MixedStorageKVStoreOptions { LogDiskBudgetBytes = 100L << 20 };

        var exception = Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(options));

        string problem = Assert.Single(exception.Problems);
        Assert.Contains($"LogDiskBudgetBytes is {100L << 20}", problem, StringComparison.Ordinal);
        Assert.Contains($"at least {512L << 20} bytes", problem, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_ALogDiskBudgetWithScheduledCompactionOff_IsRejected_AndANegativeOneToo()
    {
        var withoutCompaction = new MixedStorageKVStoreOptions { LogDiskBudgetBytes = 1L << 30, TimeBetweenLogCompactionsMS = -1 };
        var negative = new MixedStorageKVStoreOptions { LogDiskBudgetBytes = -1 };

        string offProblem = Assert.Single(Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(withoutCompaction)).Problems);
        string negativeProblem = Assert.Single(Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(negative)).Problems);

        Assert.Contains("TimeBetweenLogCompactionsMS is -1", offProblem, StringComparison.Ordinal);
        Assert.Contains("LogDiskBudgetBytes is -1", negativeProblem, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_ALogDiskBudget_ReachesTheSettings()
    {
        var options = new MixedStorageKVStoreOptions { LogDiskBudgetBytes = 1L << 30 };

        Assert.Equal(1L << 30, StoreSettingsValidator.Validate(options).LogDiskBudgetBytes);
        Assert.Equal(0, StoreSettingsValidator.Validate(new MixedStorageKVStoreOptions()).LogDiskBudgetBytes);
    }

    [Theory]
    [InlineData(DurabilityMode.None, "wal", "keeps no write-ahead log")]
    [InlineData(DurabilityMode.Commit, "   ", "use a valid directory path")]
    public void AWriteAheadLogDirectory_WhereNoLogCanBeKept_IsRefused_WithWhatToChange(DurabilityMode durability, string directory, string expected)
    {
        var options = new MixedStorageKVStoreOptions
        {
            LogDirectory = Path.GetTempPath(),
            DeleteLogOnClose = durability == DurabilityMode.None,
            Durability = durability,
            WriteAheadLogDirectory = directory,
        };

        var exception = Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(options));

        string problem = Assert.Single(exception.Problems);
        Assert.Contains(nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory), problem, StringComparison.Ordinal);
        Assert.Contains(expected, problem, StringComparison.Ordinal);
    }

    [Fact]
    public void AWriteAheadLogDirectory_IsResolvedToAFullPath()
    {
        var options = new MixedStorageKVStoreOptions
        {
            LogDirectory = Path.GetTempPath(),
            DeleteLogOnClose = false,
            Durability = DurabilityMode.Commit,
            WriteAheadLogDirectory = "relative-wal",
        };

        Assert.Equal(Path.GetFullPath("relative-wal"), StoreSettingsValidator.Validate(options).WriteAheadLogDirectory);
    }

    [Theory]
    [InlineData(DurabilityMode.None, 0.9)]
    [InlineData(DurabilityMode.Checkpoint, 0.9)]
    [InlineData(DurabilityMode.Commit, 0.1)]
    public void ALogMutableFractionLeftUnset_IsTheDurabilityModesDefault(DurabilityMode durability, double expected)
    {
        var options = new MixedStorageKVStoreOptions { LogDirectory = Path.GetTempPath(), DeleteLogOnClose = durability == DurabilityMode.None, Durability = durability };

        Assert.Equal(expected, StoreSettingsValidator.Validate(options).LogMutableFraction);
        options.LogMutableFraction = 0.5;
        Assert.Equal(0.5, StoreSettingsValidator.Validate(options).LogMutableFraction);
    }

    [Theory]
    [InlineData(-0.1)]
    [InlineData(1.5)]
    [InlineData(double.NaN)]
    public void ALogMutableFractionOutsideZeroToOne_IsRefused(double fraction)
    {
        var options = new MixedStorageKVStoreOptions { LogMutableFraction = fraction };

        var exception = Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(options));

        string problem = Assert.Single(exception.Problems);
        Assert.Contains($"LogMutableFraction is {fraction}", problem, StringComparison.Ordinal);
        Assert.Contains("use a fraction from 0 to 1", problem, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(1.5)]
    [InlineData(2.0)]
    [InlineData(16.0)]
    public void ACompactionLogToLiveRatio_FromOneAndAHalfToSixteen_ReachesTheSettings(double ratio)
    {
        var options = new MixedStorageKVStoreOptions { CompactionLogToLiveRatio = ratio };

        Assert.Equal(ratio, StoreSettingsValidator.Validate(options).CompactionLogToLiveRatio);
        Assert.Equal(2.0, StoreSettingsValidator.Validate(new MixedStorageKVStoreOptions()).CompactionLogToLiveRatio);
    }

    [Theory]
    [InlineData(1.4)]
    [InlineData(1.0)]
    [InlineData(16.5)]
    [InlineData(double.NaN)]
    [InlineData(double.PositiveInfinity)]
    public void ACompactionLogToLiveRatioOutsideItsRange_IsRefused(double ratio)
    {
        var options = new MixedStorageKVStoreOptions { CompactionLogToLiveRatio = ratio };

        var exception = Assert.Throws<InvalidStoreOptionsException>(() => StoreSettingsValidator.Validate(options));

        string problem = Assert.Single(exception.Problems);
        Assert.Contains($"CompactionLogToLiveRatio is {ratio}", problem, StringComparison.Ordinal);
        Assert.Contains("use 1.5 to 16", problem, StringComparison.Ordinal);
    }
}
