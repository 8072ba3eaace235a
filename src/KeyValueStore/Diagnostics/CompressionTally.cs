namespace KeyValueStore.Diagnostics;

/// <summary>
/// What became of the values written at or above the compression threshold since the store opened, for
/// <c>kvstore.value.compression</c>: compressed, tried and stored plain, or stored plain untried while attempts backed off.
/// </summary>
internal readonly record struct CompressionTally(long Compressed, long Incompressible, long NotTried);
