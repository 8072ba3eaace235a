using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Sizes the value of a record created by RMW. Our only RMW is delete (see <see cref="RecordFunctions"/>),
/// whose new record is a tombstone, so it gets an empty value: the length prefix alone. Without this,
/// FASTER would size the tombstone like the value it replaces and a delete of a 1 MB value would append 1 MB.
/// </summary>
internal sealed class TombstoneValueLength : IVariableLengthStruct<SpanByte, SpanByte>
{
    public int GetInitialLength(ref SpanByte input) => sizeof(int);

    public int GetLength(ref SpanByte t, ref SpanByte input) => sizeof(int);
}
