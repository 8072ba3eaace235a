using System;
using System.Collections.Generic;
using FASTER.core;

namespace KeyValueStore.Engine;

/// <summary>
/// Copies of the records of one stretch of a log scan that are not deletes: where they lie, their keys and their stored
/// values, in one reused arena. A scan iterator's key and value point into memory it reuses on its next step (and that the log may
/// evict once the iterator lets go of the epoch), so a compaction that awaits between records works on these copies.
/// </summary>
internal sealed class ScannedRecords
{
    /// <summary>
    /// How many records the scan copies between two calls to its give-way (<see cref="Concurrency.GiveWay"/>): copying a
    /// scanned record into the arena is far less work than a copy worker's record (a locating read, and an upsert when
    /// it is live), which gives way before each one, so the scan does it for a handful. Not tuned: the paced load test's
    /// figures with it are in docs/benchmarks.md, "Compaction gives way between records".
    /// </summary>
    public const int RecordsPerGiveWay = 16;

    private readonly byte[] _arena;
    private readonly int _fillBytes;
    private readonly List<ScannedRecord> _entries = [];
    private int _used;

    /// <param name="fillBytes">How many bytes of keys and values one batch gathers before it stops.</param>
    /// <param name="largestRecordBytes">The largest record the log can hold (its page size): one more always fits.</param>
    public ScannedRecords(int fillBytes, int largestRecordBytes)
    {
        _fillBytes = fillBytes;
        _arena = new byte[fillBytes + largestRecordBytes];
    }

    /// <summary>Gets the number of records gathered.</summary>
    public int Count => _entries.Count;

    /// <summary>Where record <paramref name="index"/> lies.</summary>
    public RecordLocation LocationOf(int index) => _entries[index].Location;

    /// <summary>The key of record <paramref name="index"/>.</summary>
    public ReadOnlyMemory<byte> KeyOf(int index) => _arena.AsMemory(_entries[index].Offset, _entries[index].KeyLength);

    /// <summary>The stored value of record <paramref name="index"/>, exactly as the log holds it (with its seal, if any).</summary>
    public ReadOnlyMemory<byte> ValueOf(int index)
    {
        ScannedRecord entry = _entries[index];
        return _arena.AsMemory(entry.Offset + entry.KeyLength, entry.ValueLength);
    }

    /// <summary>
    /// Replaces the batch with the next records of <paramref name="scan"/>'s slice, skipping tombstones (a compaction drops
    /// them), until it holds its fill of bytes or the slice ends. Returns false when the slice had nothing left.
    /// </summary>
    /// <param name="scan">The pass's scan, at the slice's next record.</param>
    /// <param name="giveWay">Called every <see cref="RecordsPerGiveWay"/> records scanned (<see cref="Concurrency.GiveWay"/>); null to scan without a pause.</param>
    public bool FillFrom(SliceScan scan, Action? giveWay)
    {
        _entries.Clear();
        _used = 0;
        int scanned = 0;
        while (_used < _fillBytes && scan.TryNext(out RecordInfo info))
        {
            if (++scanned % RecordsPerGiveWay == 0)
            {
                giveWay?.Invoke();
            }

            if (info.Tombstone)
            {
                continue;
            }

            // The iterator copied the record out of the log before it let go of the epoch: these stay valid until its next step.
            ReadOnlySpan<byte> keyBytes = scan.GetKey().AsReadOnlySpan();
            ReadOnlySpan<byte> valueBytes = scan.GetValue().AsReadOnlySpan();
            keyBytes.CopyTo(_arena.AsSpan(_used));
            valueBytes.CopyTo(_arena.AsSpan(_used + keyBytes.Length));
            _entries.Add(new ScannedRecord(new RecordLocation(scan.CurrentAddress, info.PreviousAddress), _used, keyBytes.Length, valueBytes.Length));
            _used += keyBytes.Length + valueBytes.Length;
        }

        return _entries.Count > 0;
    }

    private readonly record struct ScannedRecord(RecordLocation Location, int Offset, int KeyLength, int ValueLength);
}
