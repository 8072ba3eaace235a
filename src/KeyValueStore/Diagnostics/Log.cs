using Microsoft.Extensions.Logging;

namespace KeyValueStore.Diagnostics;

/// <summary>
/// Every log event of the library. EventIds are stable: dashboards and alerts may key on them, so a
/// number is never reused for a different event.
/// </summary>
internal static partial class Log
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
}
