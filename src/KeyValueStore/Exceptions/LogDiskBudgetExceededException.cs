namespace KeyValueStore;

/// <summary>
/// Thrown by a write that would grow the log past <see cref="MixedStorageKVStoreOptions.LogDiskBudgetBytes"/> when
/// compaction cannot bring it back under: the live data fills the budget.
/// </summary>
/// <remarks>
/// Nothing of the refused write was written, and everything stored before stays readable. Deletes are always accepted:
/// they are how room is made, and the next write that finds the log full asks compaction for it again.
/// </remarks>
public sealed class LogDiskBudgetExceededException : KeyValueStoreException
{
    internal LogDiskBudgetExceededException(long logBytes, long budgetBytes, long? liveBytesEstimate, Shortfall why)
        : base(MessageFor(logBytes, budgetBytes, liveBytesEstimate, why))
    {
        LogBytes = logBytes;
        BudgetBytes = budgetBytes;
        LiveBytesEstimate = liveBytesEstimate;
    }

    /// <summary>Gets the log's size when the write was refused: from its begin address to its tail.</summary>
    public long LogBytes { get; }

    /// <summary>Gets the budget the store was opened with (<see cref="MixedStorageKVStoreOptions.LogDiskBudgetBytes"/>).</summary>
    public long BudgetBytes { get; }

    /// <summary>Gets compaction's latest estimate of the log's live bytes, or null before its first pass.</summary>
    public long? LiveBytesEstimate { get; }

    /// <summary>Why compaction could not make room.</summary>
    internal enum Shortfall
    {
        /// <summary>The live data fills the budget: compaction has nothing to give back.</summary>
        LiveDataFillsTheBudget,

        /// <summary>Compaction ran, or was asked to, several times in a row and gave no room back.</summary>
        CompactionGaveNoRoom,

        /// <summary>No compaction is scheduled, so nothing makes room (the options validator refuses this shape).</summary>
        CompactionNotScheduled,
    }

    private static string MessageFor(long logBytes, long budgetBytes, long? liveBytesEstimate, Shortfall shortfall)
    {
        string live = liveBytesEstimate is long estimate ? $" About {estimate} bytes of it are live records." : string.Empty;
        string why = shortfall switch
        {
            Shortfall.LiveDataFillsTheBudget => "compaction cannot bring it back under: the live data fills the budget.",
            Shortfall.CompactionNotScheduled => $"no compaction is scheduled to bring it back under ({nameof(MixedStorageKVStoreOptions)}."
                + $"{nameof(MixedStorageKVStoreOptions.TimeBetweenLogCompactionsMS)} must be positive with a budget).",
            _ => "compaction gave no room back in several attempts in a row (the store's log says why).",
        };
        return $"The store's log holds {logBytes} bytes, at its budget of {budgetBytes} bytes ({nameof(MixedStorageKVStoreOptions)}.{nameof(MixedStorageKVStoreOptions.LogDiskBudgetBytes)}), and {why}{live} "
            + "This write was refused and nothing was written; everything stored before is still there. Delete keys you no longer need "
            + "(the next write asks compaction for their room), or open the store with a larger budget.";
    }
}
