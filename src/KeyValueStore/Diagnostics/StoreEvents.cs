using System;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Diagnostics;

/// <summary>
/// Every event the library writes to its <see cref="ILogger"/>. EventIds are stable: dashboards and alerts may key on
/// them, so a number is never reused for a different event. (Not called "Log": in this code base "log" is FASTER's
/// hybrid log, and the write-ahead log is always named in full.)
/// </summary>
internal static partial class StoreEvents
{
    [LoggerMessage(EventId = 1, Level = LogLevel.Information,
        Message = "Store opened: log files '{LogBasePath}.<n>', {PageSizeBytes}-byte pages, {MemorySizeBytes} bytes of log in memory, {SegmentSizeBytes}-byte segments, delete on close {DeleteLogOnClose}.")]
    public static partial void StoreOpened(ILogger logger, string logBasePath, long pageSizeBytes, long memorySizeBytes, long segmentSizeBytes, bool deleteLogOnClose);

    [LoggerMessage(EventId = 2, Level = LogLevel.Information,
        Message = "Store opened on a FasterKV supplied by the caller; the caller owns its device and files.")]
    public static partial void StoreOpenedOnSuppliedFasterKV(ILogger logger);

    [LoggerMessage(EventId = 3, Level = LogLevel.Information,
        Message = "Store closed after draining in-flight operations; log files {Disposition}.")]
    public static partial void StoreClosed(ILogger logger, string disposition);

    [LoggerMessage(EventId = 10, Level = LogLevel.Debug,
        Message = "Compaction skipped: the log is {LogBytes} bytes, below the threshold of {ThresholdBytes} bytes.")]
    public static partial void CompactionSkipped(ILogger logger, long logBytes, long thresholdBytes);

    [LoggerMessage(EventId = 11, Level = LogLevel.Information,
        Message = "Compacted the log from {LogBytesBefore} to {LogBytesAfter} bytes; {DiskBytesFreed} bytes of segment files released to the disk; took {Duration}.")]
    public static partial void Compacted(ILogger logger, long logBytesBefore, long logBytesAfter, long diskBytesFreed, TimeSpan duration);

    [LoggerMessage(EventId = 12, Level = LogLevel.Information,
        Message = "Compaction threshold changed from {OldThresholdBytes} to {NewThresholdBytes} bytes of log: the live bytes, steadied over the latest estimates, are {LiveBytesEstimate}.")]
    public static partial void CompactionThresholdChanged(ILogger logger, long oldThresholdBytes, long newThresholdBytes, long liveBytesEstimate);

    [LoggerMessage(EventId = 13, Level = LogLevel.Warning,
        Message = "Compaction failed; the log is unchanged where it was not compacted, and the next scheduled compaction will try again.")]
    public static partial void CompactionFailed(ILogger logger, Exception exception);

    [LoggerMessage(EventId = 14, Level = LogLevel.Warning,
        Message = "Compaction held writers back for {BackPressure}: the log reached {LogBytes} bytes, a quarter again over its threshold of {ThresholdBytes} bytes (or its disk budget, if that is lower). Writes are arriving faster than compaction frees space; writers are slowed until it catches up.")]
    public static partial void CompactionBackPressure(ILogger logger, TimeSpan backPressure, long logBytes, long thresholdBytes);

    [LoggerMessage(EventId = 15, Level = LogLevel.Warning,
        Message = "The log's live data fills its disk budget: a compaction of everything it could reach left {LogBytes} bytes against a budget of {BudgetBytes} bytes. Writes are refused (LogDiskBudgetExceededException) until deletes make room; deletes are accepted.")]
    public static partial void LogDiskBudgetFilled(ILogger logger, long logBytes, long budgetBytes);

    [LoggerMessage(EventId = 20, Level = LogLevel.Debug,
        Message = "Checkpoint {Token} ({Reason}) completed: store version {Version} is on disk; took {Duration}, of which writers waited {WritersHeld} (until its tail was fixed).")]
    public static partial void CheckpointTaken(ILogger logger, string reason, Guid token, long version, TimeSpan duration, TimeSpan writersHeld);

    [LoggerMessage(EventId = 21, Level = LogLevel.Information,
        Message = "Store recovered from checkpoint {Token} (version {Version}): log from {BeginAddress} to {TailAddress}, index {Index}; took {Duration}.")]
    public static partial void StoreRecovered(ILogger logger, Guid token, long version, long beginAddress, long tailAddress, string index, TimeSpan duration);

    [LoggerMessage(EventId = 22, Level = LogLevel.Warning,
        Message = "Skipped checkpoint metadata '{MetadataPath}': the checkpoint never completed (a crash interrupted it); recovering from the latest completed one.")]
    public static partial void IncompleteCheckpointSkipped(ILogger logger, string metadataPath);

    [LoggerMessage(EventId = 23, Level = LogLevel.Warning,
        Message = "A {Reason} checkpoint failed; the previous checkpoint still stands and the next one will try again.")]
    public static partial void CheckpointFailed(ILogger logger, string reason, Exception exception);

    [LoggerMessage(EventId = 24, Level = LogLevel.Information,
        Message = "Durable store created: manifest '{ManifestPath}', durability {Durability}.")]
    public static partial void DurableStoreCreated(ILogger logger, string manifestPath, DurabilityMode durability);

    [LoggerMessage(EventId = 25, Level = LogLevel.Information,
        Message = "Write-ahead log replayed from {FromAddress} to {UntilAddress}: {Transactions} transactions, {Writes} writes; {Incomplete} unacknowledged batches left out; took {Duration}.")]
    public static partial void WriteAheadLogReplayed(ILogger logger, long fromAddress, long untilAddress, long transactions, long writes, int incomplete, TimeSpan duration);

    [LoggerMessage(EventId = 26, Level = LogLevel.Error,
        Message = "A write-ahead log commit failed; the writers waiting for it get StoreFaultedException, and the store refuses writes until it is reopened.")]
    public static partial void WriteAheadLogCommitFailed(ILogger logger, Exception exception);

    [LoggerMessage(EventId = 27, Level = LogLevel.Information,
        Message = "Write-ahead log '{Directory}' retired: the store now runs with durability {Durability}, and a checkpoint holds everything the log held.")]
    public static partial void WriteAheadLogRetired(ILogger logger, string directory, DurabilityMode durability);

    [LoggerMessage(EventId = 28, Level = LogLevel.Information,
        Message = "Write-ahead log '{Directory}': cleared what a crash left after its committed end at address {CommittedUntilAddress}, before appending there.")]
    public static partial void WriteAheadLogTailCleared(ILogger logger, string directory, long committedUntilAddress);

    [LoggerMessage(EventId = 29, Level = LogLevel.Warning,
        Message = "No checkpoint on close: the write-ahead log has failed, and a checkpoint would make durable the writes whose callers were told they failed. The next open recovers the previous checkpoint and the log's committed entries.")]
    public static partial void CloseCheckpointSkipped(ILogger logger);

    [LoggerMessage(EventId = 30, Level = LogLevel.Warning,
        Message = "The write-ahead log in {Directory} ends with a flush that a crash cut short: its entry at address {TornAddress} is incomplete, so the log ends there (a commit record at {FoundEnd} came from the same unacknowledged flush). Nothing acknowledged was lost.")]
    public static partial void WriteAheadLogTornTailDropped(ILogger logger, string directory, long tornAddress, long foundEnd);

    [LoggerMessage(EventId = 31, Level = LogLevel.Debug,
        Message = "Index checkpoint {Token} taken: {Bytes} bytes; an open now replays the log from address {StartAddress} rather than {ReplayBytes} bytes of it; took {Duration}.")]
    public static partial void IndexCheckpointTaken(ILogger logger, Guid token, long bytes, long replayBytes, long startAddress, TimeSpan duration);

    [LoggerMessage(EventId = 32, Level = LogLevel.Warning,
        Message = "Index checkpoint {Token} could not be recorded; the previous one, or the whole log, still serves the next open, which only takes longer.")]
    public static partial void IndexCheckpointFailed(ILogger logger, Guid token, Exception exception);

    [LoggerMessage(EventId = 33, Level = LogLevel.Warning,
        Message = "Index checkpoint {Token} was not used, because {Reason}: the index is rebuilt from the whole log instead, which loses nothing but takes longer.")]
    public static partial void IndexCheckpointNotUsed(ILogger logger, Guid token, string reason);
}
