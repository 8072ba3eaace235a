using System.Threading.Tasks;

namespace KeyValueStore.Compaction;

/// <summary>
/// The engine's part of a compaction: copies every record in [<paramref name="fromAddress"/>,
/// <paramref name="untilAddress"/>) that is still its key's live, latest version to the log's tail, while writers run,
/// and returns the bytes it appended. It moves no address; the compaction does, once the copies are in the log.
/// </summary>
/// <exception cref="StoreFaultedException">The store's disk failed while records were copied.</exception>
internal delegate Task<long> CopyLiveRecords(long fromAddress, long untilAddress);
