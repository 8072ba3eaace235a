using System.Threading.Tasks;

namespace KeyValueStore.Compaction;

/// <summary>
/// The engine's estimate of the bytes of live records in the log now: those still their key's latest, of every record
/// from the begin address to the tail. The compactor takes one after each pass and scales its threshold by it
/// (<see cref="CompactionThresholdPolicy"/>).
/// </summary>
/// <exception cref="StoreFaultedException">The store's disk failed while records were read.</exception>
internal delegate Task<long> EstimateLiveBytes();
