using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>A recovered store's FASTER log and, when there is one, its write-ahead log and the address to replay it from.</summary>
internal sealed record RecoveredLog(FasterKV<SpanByte, SpanByte> Store, TruncationSafeDevice Device, CheckpointDeviceFactory CheckpointFiles, WriteAheadLog? WriteAheadLog, long ReplayFrom);
