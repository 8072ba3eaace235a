using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using FASTER.core;
using KeyValueStore.Storage;
using Microsoft.Win32.SafeHandles;

namespace KeyValueStore.Durability;

/// <summary>
/// The write-ahead log's commit metadata (FASTER's <see cref="ILogCommitManager"/>): one small file with two slots,
/// written in turn, each write synchronous (write-through) and sealed with a CRC-32C.
/// </summary>
/// <remarks>
/// The log runs in FASTER's fast-commit mode: a commit is durable, and acknowledged, once a commit record written into
/// the log itself is on disk, in the same write as the entries it commits. This file only tells recovery where to
/// start looking for commit records; recovery then scans forward from there and stops at the first entry that fails its
/// checksum. So metadata is written at most every <see cref="DefaultMinimumInterval"/> (and whenever the log's begin address
/// moves, which FASTER forces), not once per commit: a synchronous metadata write per commit tripled the latency of a
/// single writer on the development VM (docs/durability.md).
/// <para>
/// What the interval costs: an entry damaged on disk before the latest metadata is found by replay and reported; one
/// damaged after it looks to the forward scan like the end of the log, and <see cref="WalTearCheck"/> decides whether a
/// crash could have left it.
/// </para>
/// <para>
/// A new log gets a first slot (commit 0, empty) before anything is appended (<see cref="EnsureStart"/>), so recovery always has a start, and the
/// two slots always hold the two latest metadata writes. A torn slot write fails its CRC and the other slot is used.
/// Slot layout: magic "KVWC" (4 bytes), commit number (8), metadata length (4), FASTER's metadata, CRC-32C of all of
/// that (4).
/// </para>
/// </remarks>
internal sealed class WalCommitFile : ILogCommitManager
{
    public const int SlotSize = 4096;
    private const uint Magic = 0x4357564B; // "KVWC", little-endian
    private const int HeaderSize = 16;
    private const int CrcSize = 4;

    private readonly SafeFileHandle _file;
    private readonly long _minimumIntervalMs;
    private readonly object _writeLock = new();
    private int _nextSlot;
    private long _lastWriteTicks = long.MinValue / 2;

    private WalCommitFile(string path, SafeFileHandle file, TimeSpan minimumInterval)
    {
        Path = path;
        _file = file;
        _minimumIntervalMs = (long)minimumInterval.TotalMilliseconds;
    }

    /// <summary>Gets the shortest time between two metadata writes that FASTER does not force.</summary>
    public static TimeSpan DefaultMinimumInterval { get; } = TimeSpan.FromMilliseconds(10);

    public string Path { get; }

    /// <summary>Opens the file, creating it with two empty slots if needed; <see cref="EnsureStart"/> must follow.</summary>
    /// <param name="path">The file.</param>
    /// <param name="minimumInterval">The shortest time between unforced metadata writes; <see cref="DefaultMinimumInterval"/> when null.</param>
    public static WalCommitFile Open(string path, TimeSpan? minimumInterval = null)
    {
        SafeFileHandle file = File.OpenHandle(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.Read, FileOptions.WriteThrough);
        try
        {
            if (RandomAccess.GetLength(file) < 2 * SlotSize)
            {
                RandomAccess.SetLength(file, 2 * SlotSize);
            }

            return new WalCommitFile(path, file, minimumInterval ?? DefaultMinimumInterval);
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Makes sure recovery has a start: a new log (both slots empty) gets its first slot, pointing at
    /// <paramref name="firstAddress"/>. Also picks the slot the next write replaces: the older one.
    /// </summary>
    /// <param name="firstAddress">The first address of an empty log.</param>
    /// <param name="logHasSegments">Whether the log has segment files, which empty slots would hide.</param>
    /// <exception cref="StoreFileCorruptedException">Neither slot is intact, yet the log has segments or a slot was written.</exception>
    public void EnsureStart(long firstAddress, bool logHasSegments)
    {
        Slot? first = ReadSlot(0);
        Slot? second = ReadSlot(1);
        if (first is null && second is null)
        {
            if (logHasSegments || !IsZero(0) || !IsZero(1))
            {
                throw new StoreFileCorruptedException(Path, "neither of its two commit slots is intact, so the write-ahead log's committed entries cannot be found");
            }

            var start = new FasterLogRecoveryInfo { BeginAddress = firstAddress, UntilAddress = firstAddress, CommitNum = 0 };
            WriteSlot(0, 0, start.ToByteArray());
            _nextSlot = 1;
            return;
        }

        _nextSlot = second is null || (first is not null && first.Value.CommitNum > second.Value.CommitNum) ? 1 : 0;
    }

    public void Commit(long beginAddress, long untilAddress, byte[] commitMetadata, long commitNum, bool forceWriteMetadata)
    {
        lock (_writeLock)
        {
            long now = Environment.TickCount64;
            if (!forceWriteMetadata && now - _lastWriteTicks < _minimumIntervalMs)
            {
                return;
            }

            WriteSlot(_nextSlot, commitNum, commitMetadata);
            _nextSlot = 1 - _nextSlot;
            _lastWriteTicks = now;
        }
    }

    public byte[] GetCommitMetadata(long commitNum)
    {
        foreach (Slot? slot in new[] { ReadSlot(0), ReadSlot(1) })
        {
            if (slot is { } found && found.CommitNum == commitNum)
            {
                return found.Metadata;
            }
        }

        return null!;
    }

    /// <summary>
    /// The address up to which the newest intact slot says the log was committed, and that commit's cookie
    /// (<see cref="WalCommitCookie"/>; null in a new log's first slot), or null when no slot holds one. The log's true
    /// committed end is at or after it (slots are written at most every few milliseconds).
    /// </summary>
    public (long UntilAddress, byte[]? Cookie)? RecordedCommit()
    {
        Slot? newest = null;
        foreach (Slot? slot in new[] { ReadSlot(0), ReadSlot(1) })
        {
            if (slot is { } found && (newest is null || found.CommitNum > newest.Value.CommitNum))
            {
                newest = found;
            }
        }

        if (newest is not { } latest)
        {
            return null;
        }

        var info = default(FasterLogRecoveryInfo);
        using var reader = new BinaryReader(new MemoryStream(latest.Metadata));
        info.Initialize(reader);
        return (info.UntilAddress, info.Cookie);
    }

    /// <summary>The intact slots, newest first: FASTER recovers from the first it can load.</summary>
    public IEnumerable<long> ListCommits()
    {
        var commits = new List<long>(2);
        foreach (Slot? slot in new[] { ReadSlot(0), ReadSlot(1) })
        {
            if (slot is { } found)
            {
                commits.Add(found.CommitNum);
            }
        }

        commits.Sort((a, b) => b.CompareTo(a));
        return commits;
    }

    /// <summary>Slots are overwritten in turn, so an old commit needs no removal.</summary>
    public void RemoveCommit(long commitNum)
    {
    }

    /// <summary>Not called by FasterLog in this store's use; it would leave recovery without a start, so it is refused.</summary>
    public void RemoveAllCommits() => throw new NotSupportedException("The write-ahead log's commit slots are never cleared; delete the log's directory instead.");

    public void OnRecovery(long commitNum)
    {
    }

    public void Dispose() => _file.Dispose();

    private void WriteSlot(int index, long commitNum, byte[] metadata)
    {
        int length = HeaderSize + metadata.Length + CrcSize;
        if (length > SlotSize)
        {
            // FASTER's metadata for a log with no named iterators and a WalCommitCookie is under 150 bytes.
            throw new InvalidOperationException($"Write-ahead log commit metadata of {metadata.Length} bytes does not fit a {SlotSize}-byte slot.");
        }

        byte[] slot = new byte[length];
        BinaryPrimitives.WriteUInt32LittleEndian(slot, Magic);
        BinaryPrimitives.WriteInt64LittleEndian(slot.AsSpan(4), commitNum);
        BinaryPrimitives.WriteInt32LittleEndian(slot.AsSpan(12), metadata.Length);
        metadata.CopyTo(slot.AsSpan(HeaderSize));
        BinaryPrimitives.WriteUInt32LittleEndian(slot.AsSpan(length - CrcSize), Crc32C.Compute(slot.AsSpan(0, length - CrcSize), 0));
        RandomAccess.Write(_file, slot, (long)index * SlotSize);
    }

    private Slot? ReadSlot(long index)
    {
        byte[] bytes = new byte[SlotSize];
        int read = RandomAccess.Read(_file, bytes, index * SlotSize);
        if (read < HeaderSize + CrcSize || BinaryPrimitives.ReadUInt32LittleEndian(bytes) != Magic)
        {
            return null;
        }

        int metadataLength = BinaryPrimitives.ReadInt32LittleEndian(bytes.AsSpan(12));
        if (metadataLength < 0 || HeaderSize + metadataLength + CrcSize > read)
        {
            return null;
        }

        int crcOffset = HeaderSize + metadataLength;
        if (BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(crcOffset)) != Crc32C.Compute(bytes.AsSpan(0, crcOffset), 0))
        {
            return null;
        }

        return new Slot(BinaryPrimitives.ReadInt64LittleEndian(bytes.AsSpan(4)), bytes.AsSpan(HeaderSize, metadataLength).ToArray());
    }

    private bool IsZero(long index)
    {
        byte[] bytes = new byte[SlotSize];
        int read = RandomAccess.Read(_file, bytes, index * SlotSize);
        return bytes.AsSpan(0, read).IndexOfAnyExcept((byte)0) < 0;
    }

    private readonly record struct Slot(long CommitNum, byte[] Metadata);
}
