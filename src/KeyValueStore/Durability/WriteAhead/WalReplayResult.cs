namespace KeyValueStore.Durability;

/// <summary>What a write-ahead log replay applied, and how many unacknowledged batches it left out.</summary>
internal readonly record struct WalReplayResult(long Transactions, long Writes, int IncompleteTransactions);
