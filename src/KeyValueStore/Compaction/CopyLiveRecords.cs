using System.Threading.Tasks;

namespace KeyValueStore.Compaction;

/// <summary>
/// The engine's part of a compaction: copies every record in [<paramref name="fromAddress"/>,
/// <paramref name="untilAddress"/>) that is still its key's live, latest version to the log's tail, and returns the
/// bytes it appended. Once it returns the copies are in the log, and the begin address may move past the range.
/// </summary>
/// <param name="fromAddress">The log's begin address.</param>
/// <param name="untilAddress">A page boundary above it.</param>
/// <param name="writersHeld">
/// Whether back-pressure holds every writer out while this runs: the engine may then copy the faster way, which is safe
/// only with no write in flight.
/// </param>
/// <param name="pace">
/// How many records the engine may copy at once beside the writers, and whether it gives way to foreground work between
/// them: a pass with time to spare uses few workers that give way, so that its copying leaves the cores to the writers
/// (<see cref="CompactionThresholdPolicy.CopyWorkersFor"/>), until it hurries the slice (<see cref="SlicePace"/>).
/// </param>
/// <param name="passUntilAddress">
/// Where the pass this range belongs to ends (at least <paramref name="untilAddress"/>): the engine may keep reading
/// toward it, so that the pass's next range continues the same scan of the log (<see cref="Engine.SliceScan"/>).
/// </param>
/// <exception cref="StoreFaultedException">The store's disk failed while records were copied.</exception>
internal delegate Task<long> CopyLiveRecords(long fromAddress, long untilAddress, bool writersHeld, SlicePace pace, long passUntilAddress);
