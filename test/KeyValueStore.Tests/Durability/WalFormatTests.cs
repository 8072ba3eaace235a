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
        void Add(long address, WalFragmentKind kind, long first, params byte[] payload)
        {
            byte[] entry = new byte[WalFragment.HeaderSize + payload.Length];
            payload.CopyTo(entry, WalFragment.HeaderSize);
            WalFragment.WriteHeader(entry, entry.Length, kind, first);
            if (assembler.TryAdd(address, entry, out ReadOnlyMemory<byte> transaction))
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
    public void TheAssembler_RefusesAPieceOfATransactionThatNeverBegan_AndAPieceThatFailsItsChecksum()
    {
        var assembler = new WalTransactionAssembler();
        byte[] orphan = new byte[WalFragment.HeaderSize + 1];
        WalFragment.WriteHeader(orphan, orphan.Length, WalFragmentKind.Last, 64);
        byte[] damaged = new byte[WalFragment.HeaderSize + 1];
        WalFragment.WriteHeader(damaged, damaged.Length, WalFragmentKind.Whole, 0);
        damaged[^1] ^= 1;

        Assert.Throws<FormatException>(() => assembler.TryAdd(128, orphan, out _));
        Assert.Throws<FormatException>(() => assembler.TryAdd(256, damaged, out _));
    }

    [Fact]
    public void TheLogPosition_RoundTrips_AndADamagedOneIsRefused()
    {
        byte[] cookie = WalPosition.ToCookie(123_456_789);

        Assert.True(WalPosition.TryRead(cookie, out long address));
        Assert.Equal(123_456_789, address);
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

    private static string Describe(BatchWrite write) =>
        $"{(write.IsDelete ? "delete" : "upsert")} {Convert.ToHexString(write.Key.Span)}={Convert.ToHexString(write.Value.Span)}";

    private static byte[] Metadata(long begin, long until, long commitNum) =>
        new FasterLogRecoveryInfo { BeginAddress = begin, UntilAddress = until, CommitNum = commitNum }.ToByteArray();
}
