using System;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>
/// Which live records compaction drops instead of copying: those whose value the store's
/// <see cref="StoreSettings.DropOnCompaction"/> filter says to drop (a cache entry past its expiry). A dropped record's
/// key reads as absent once the log's begin address has passed it, as after a delete.
/// </summary>
/// <remarks>
/// Dropping is always safe against writers: it is exactly what compaction does to a record a newer one superseded,
/// and a write of the key after the check lands at the tail either way. A record is never dropped when its seal does
/// not match (reads must report the damage, not lose it) or when the filter throws anything at all (a value it cannot
/// judge is kept, and the pass goes on).
/// </remarks>
internal sealed class CompactionDropRule
{
    private readonly StoredValueFilter? _filter;
    private readonly bool _valueChecksums;

    public CompactionDropRule(StoredValueFilter? filter, bool valueChecksums)
    {
        _filter = filter;
        _valueChecksums = valueChecksums;
    }

    /// <summary>Gets whether any record can be dropped.</summary>
    public bool DropsAny => _filter is not null;

    /// <summary>Whether compaction drops the live record of <paramref name="key"/> holding <paramref name="stored"/> (its value as stored, seal included).</summary>
    public bool ShouldDrop(ReadOnlySpan<byte> key, ReadOnlySpan<byte> stored)
    {
        if (_filter is null)
        {
            return false;
        }

        ReadOnlySpan<byte> value = stored;
        if (_valueChecksums)
        {
            if (ValueChecksum.Check(key, stored) != SealState.Live)
            {
                return false;
            }

            value = stored[..^ValueChecksum.Size];
        }

        try
        {
            return _filter(value);
        }
        catch (Exception)
        {
            // The filter is the caller's code: whatever it throws, keeping the value is safe, while letting it out
            // would fail every pass and leave the log to grow.
            return false;
        }
    }

    /// <summary>The rule as FASTER's compaction asks it, for the compaction that runs with writers held.</summary>
    public Functions ForFaster() => new(this);

    /// <summary>FASTER's view of the rule: it calls <see cref="IsDeleted"/> for each live record it would copy.</summary>
    public readonly struct Functions(CompactionDropRule rule) : ICompactionFunctions<SpanByte, SpanByte>
    {
        public bool IsDeleted(ref SpanByte key, ref SpanByte value) => rule.ShouldDrop(key.AsReadOnlySpan(), value.AsReadOnlySpan());
    }
}
