namespace KeyValueStore;

/// <summary>
/// What became of the values written at or above the compression threshold (<see cref="RecordSerializer{TKey, TValue}.ValueCompression"/>),
/// the counts behind the <c>kvstore.value.compression</c> instrument.
/// </summary>
/// <param name="Compressed">Values LZ4 shrank, stored compressed.</param>
/// <param name="Incompressible">Values tried that LZ4 did not shrink, stored plain.</param>
/// <param name="NotTried">Values stored plain without a try, while attempts backed off after a run of incompressible ones.</param>
public readonly record struct ValueCompressionTally(long Compressed, long Incompressible, long NotTried);
