using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using FASTER.core;
using KeyValueStore.Durability;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.Durability;

/// <summary>The write-ahead log's own formats: transactions, their pieces, the checkpoint's log position, the commit slots.</summary>
public class WalFormatTests
{
    [Fact]
    public void ATransaction_DecodesToTheSameWrites_InOrder()
    {
        var writes = new List<BatchWrite>
        {
            BatchWrite.Upsert(new byte[] { 1, 2 }, new byte[] { 9, 9, 9 }),
            BatchWrite.Delete(new byte[] { 3 }),
            BatchWrite.Upsert(new byte[] { 1, 2 }, Array.Empty<byte>()),
        };

        byte[] encoded = WalTransaction.Encode(writes, out int length);
        List<BatchWrite> decoded = WalTransaction.Read(encoded.AsMemory(0, length));

        Assert.Equal(WalTransaction.SizeOf(writes), length);
        Assert.Equal(writes.Select(Describe), decoded.Select(Describe));
    }

    [Theory]
    [InlineData(new byte[] { 7, 0, 0, 0, 0, 0, 0, 0, 0 })]          // unknown operation
    [InlineData(new byte[] { 1, 5, 0, 0, 0, 0, 0, 0, 0, 1 })]       // key longer than the bytes left
    [InlineData(new byte[] { 2, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1 })]    // a delete with a value
    [InlineData(new byte[] { 1, 0, 0 })]                            // a cut-off write header
    public void BytesThatAreNotATransaction_AreRefused(byte[] bytes) =>
        Assert.Throws<FormatException>(() => WalTransaction.Read(bytes));

    [Fact]
    public void TheAssembler_JoinsInterleavedPieces_AtTheirLastPiece_AndLeavesOutAnUnfinishedOne()
    {
        var assembler = new WalTransactionAssembler();
        var completed = new List<byte[]>();
        long sequence = 0;
        void Add(long address, WalFragmentKind kind, long first, params byte[] payload)
        {
            byte[] entry = Entry(kind, first, sequence++, payload);
            (WalFragmentKind readKind, long readFirst, _) = WalFragment.ReadHeader(entry);
            if (assembler.TryAdd(address, readKind, readFirst, entry.AsMemory(WalFragment.HeaderSize), out ReadOnlyMemory<byte> transaction))
            {
                completed.Add(transaction.ToArray());
            }
        }

        Add(100, WalFragmentKind.First, 0, 1, 2);
        Add(200, WalFragmentKind.First, 0, 7);
        Add(300, WalFragmentKind.Whole, 0, 5);
        Add(400, WalFragmentKind.Middle, 100, 3);
        Add(500, WalFragmentKind.Last, 100, 4);

        Assert.Equal([[5], [1, 2, 3, 4]], completed);
        Assert.Equal(1, assembler.IncompleteCount);
    }

    [Fact]
    public void TheAssembler_RefusesAPieceOfATransactionThatNeverBegan()
    {
        var assembler = new WalTransactionAssembler();

        Assert.Throws<FormatException>(() => assembler.TryAdd(128, WalFragmentKind.Last, 64, new byte[] { 1 }, out _));
    }

    [Fact]
    public void AnEntryHeader_RoundTrips_WithItsSequenceNumber()
    {
        byte[] entry = Entry(WalFragmentKind.Middle, 4_096, 1_234_567_890_123, 9, 8, 7);

        Assert.Equal(WalFragment.HeaderSize + 3, entry.Length);
        Assert.Equal((WalFragmentKind.Middle, 4_096L, 1_234_567_890_123L), WalFragment.ReadHeader(entry));
    }

    /// <summary>The CRC covers every byte after itself: the first piece's address, the sequence number and the payload.</summary>
    [Theory]
    [InlineData(8)]
    [InlineData(15)]
    [InlineData(16)]
    [InlineData(23)]
    [InlineData(24)]
    [InlineData(26)]
    public void AnEntry_FailsItsChecksum_WhenAnyByteAfterTheChecksumChanges(int offset)
    {
        byte[] entry = Entry(WalFragmentKind.Whole, 0, 42, 1, 2, 3);
        entry[offset] ^= 1;

        Assert.Throws<FormatException>(() => WalFragment.ReadHeader(entry));
    }

    [Fact]
    public void TheCommitCookie_RoundTrips_AndADamagedOneIsRefused()
    {
        byte[] cookie = new WalCommitCookie(17, 123_456_789).ToBytes();

        Assert.Equal(new WalCommitCookie(17, 123_456_789), WalCommitCookie.Read(cookie));
        Assert.Equal(123_456_790, WalCommitCookie.Read(cookie).NextSequence);
        Assert.Equal(WalCommitCookie.None, WalCommitCookie.Read(null));
        Assert.Equal(0, WalCommitCookie.None.NextSequence);
        cookie[17] ^= 1;
        Assert.Throws<FormatException>(() => WalCommitCookie.Read(cookie));
        Assert.Throws<FormatException>(() => WalCommitCookie.Read(new WalPosition(1, 2).ToCookie()));
    }

    [Fact]
    public void TheLogPosition_RoundTrips_AndADamagedOneIsRefused()
    {
        byte[] cookie = new WalPosition(123_456_789, 4_242).ToCookie();

        Assert.True(WalPosition.TryRead(cookie, out WalPosition position));
        Assert.Equal(new WalPosition(123_456_789, 4_242), position);
        Assert.False(WalPosition.TryRead(null, out _));
        cookie[9] ^= 1;
        Assert.Throws<FormatException>(() => WalPosition.TryRead(cookie, out _));
    }

    [Fact]
    public void TheCommitFile_FallsBackToTheOlderSlot_WhenTheNewerIsTorn()
    {
        using var temp = new TempDirectory();
        string path = Path.Combine(temp.Path, "commits");
        using (WalCommitFile commits = WalCommitFile.Open(path))
        {
            commits.EnsureStart(64, logHasSegments: false);
            Assert.Equal([0L], commits.ListCommits());
            commits.Commit(64, 1_000, Metadata(64, 1_000, 5), 5, forceWriteMetadata: true);
            commits.Commit(64, 2_000, Metadata(64, 2_000, 9), 9, forceWriteMetadata: true);
            Assert.Equal([9L, 5L], commits.ListCommits());
        }

        // Tear the newer slot (slot 0 now: the start went to slot 0, commit 5 to slot 1, commit 9 to slot 0).
        using (var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite))
        {
            file.Position = 30;
            file.WriteByte(0xFF);
        }

        using WalCommitFile reopened = WalCommitFile.Open(path);
        reopened.EnsureStart(64, logHasSegments: true);
        Assert.Equal([5L], reopened.ListCommits());
        Assert.NotNull(reopened.GetCommitMetadata(5));
    }

    [Fact]
    public void TheCommitFile_WritesAtMostOncePerInterval_UnlessForced()
    {
        using var temp = new TempDirectory();
        using WalCommitFile commits = WalCommitFile.Open(Path.Combine(temp.Path, "commits"), TimeSpan.FromHours(1));
        commits.EnsureStart(64, logHasSegments: false);

        commits.Commit(64, 100, Metadata(64, 100, 1), 1, forceWriteMetadata: false);
        commits.Commit(64, 200, Metadata(64, 200, 2), 2, forceWriteMetadata: false);
        Assert.Equal([1L, 0L], commits.ListCommits());
        commits.Commit(64, 300, Metadata(64, 300, 3), 3, forceWriteMetadata: true);
        Assert.Equal([3L, 1L], commits.ListCommits());
    }

    [Fact]
    public void ACommitFileWithNoIntactSlot_IsRefused_WhenTheLogHasSegments()
    {
        using var temp = new TempDirectory();
        using WalCommitFile commits = WalCommitFile.Open(Path.Combine(temp.Path, "commits"));

        var error = Assert.Throws<StoreFileCorruptedException>(() => commits.EnsureStart(64, logHasSegments: true));

        Assert.Equal(commits.Path, error.FilePath);
    }

    private static byte[] Entry(WalFragmentKind kind, long first, long sequence, params byte[] payload)
    {
        byte[] entry = new byte[WalFragment.HeaderSize + payload.Length];
        payload.CopyTo(entry, WalFragment.HeaderSize);
        WalFragment.Seal(entry, sequence, WalFragment.WriteHeader(entry, entry.Length, kind, first));
        return entry;
    }

    private static string Describe(BatchWrite write) =>
        $"{(write.IsDelete ? "delete" : "upsert")} {Convert.ToHexString(write.Key.Span)}={Convert.ToHexString(write.Value.Span)}";

    private static byte[] Metadata(long begin, long until, long commitNum) =>
        new FasterLogRecoveryInfo { BeginAddress = begin, UntilAddress = until, CommitNum = commitNum }.ToByteArray();
}
