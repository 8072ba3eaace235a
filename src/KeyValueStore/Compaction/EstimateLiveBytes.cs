using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Compaction;

/// <summary>
/// The engine's estimate of the bytes of live records in the log now: those still their key's latest, of every record
/// from the begin address to the tail. The compactor takes one after each pass and scales its threshold by it
/// (<see cref="CompactionThresholdPolicy"/>).
/// </summary>
/// <param name="cancellationToken">The compaction step's: the store's disposal ends an estimate under way.</param>
/// <exception cref="StoreFaultedException">The store's disk failed while records were read.</exception>
/// <exception cref="System.OperationCanceledException"><paramref name="cancellationToken"/> was cancelled.</exception>
internal delegate Task<long> EstimateLiveBytes(CancellationToken cancellationToken);
