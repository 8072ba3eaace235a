using System;

namespace KeyValueStore.Durability;

/// <summary>A completed FASTER log checkpoint found on disk: the state a durable store reopens to.</summary>
/// <param name="Token">FASTER's token of the checkpoint.</param>
/// <param name="Version">The store version the checkpoint completed.</param>
/// <param name="BeginAddress">The log's begin address when it was taken: segments below it are no longer needed.</param>
/// <param name="FinalLogicalAddress">The log's tail in the checkpoint: everything below it was on disk when it completed.</param>
/// <param name="MetadataPath">The checkpoint's metadata file.</param>
/// <param name="WalPosition">The write-ahead log position the checkpoint holds everything before; null when it was taken without one.</param>
internal sealed record RecoveryPoint(Guid Token, long Version, long BeginAddress, long FinalLogicalAddress, string MetadataPath, WalPosition? WalPosition);
