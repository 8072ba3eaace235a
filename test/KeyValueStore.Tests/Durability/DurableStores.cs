using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using KeyValueStore.Tests.Storage;

namespace KeyValueStore.Tests.Durability;

/// <summary>Options and helpers for tests of durable stores on real files.</summary>
internal static class DurableStores
{
    /// <summary>
    /// The low-memory store made durable. Periodic checkpoints are an hour apart, so a test decides when checkpoints
    /// happen (on demand, after compaction, on close).
    /// </summary>
    public static MixedStorageKVStoreOptions Options(string directory, DurabilityMode mode)
    {
        MixedStorageKVStoreOptions options = StoreFactory.LowMemory(directory);
        options.Durability = mode;
        options.DeleteLogOnClose = false;
        options.CheckpointIntervalMS = 3_600_000;

        // Sixteen 4 KB pages rather than two: with only two pages, every fold-over checkpoint stalls all writers until
        // both pages are flushed (docs/durability.md), which makes Commit-mode tests crawl without testing anything more.
        options.MemorySizeBits = 16;
        return options;
    }

    public static byte[] Key(int i) => BitConverter.GetBytes(i);

    public static byte[] Value(int i, int version, int size = 0)
    {
        string text = $"value-{i:D6}-v{version:D4}-";
        return Encoding.UTF8.GetBytes(text.PadRight(Math.Max(size, text.Length), '#'));
    }

    public static async Task<byte[]?> ReadAsync(FasterRecordStore store, int i)
    {
        (bool found, PooledBuffer value) = await store.ReadAsync(Key(i));
        if (!found)
        {
            return null;
        }

        byte[] copy = value.Span.ToArray();
        value.Return();
        return copy;
    }

    /// <summary>Every file under <paramref name="directory"/> with a hash of its content, to prove a failed open changed nothing.</summary>
    public static IReadOnlyDictionary<string, string> Snapshot(string directory) =>
        Directory.EnumerateFiles(directory, "*", SearchOption.AllDirectories)
            .Where(path => !path.EndsWith(".lock", StringComparison.Ordinal))
            .OrderBy(path => path, StringComparer.Ordinal)
            .ToDictionary(path => path, path => Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(path))));

    /// <summary>
    /// Copies a store's files, while it is open, to <paramref name="destination"/>: what a power cut would leave once
    /// every acknowledged write is on disk. The lock file is left behind, as the kernel releases a dead process's lock.
    /// </summary>
    public static void CopyAsCrashImage(string source, string destination)
    {
        foreach (string path in Directory.EnumerateFiles(source, "*", SearchOption.AllDirectories))
        {
            if (path.EndsWith(".lock", StringComparison.Ordinal))
            {
                continue;
            }

            string target = Path.Combine(destination, Path.GetRelativePath(source, path));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(path, target);
        }
    }

    /// <summary>Flips the bits of one byte, as bit rot would.</summary>
    public static void FlipByteAt(string path, int offset)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
        file.Position = offset;
        int b = file.ReadByte();
        file.Position = offset;
        file.WriteByte((byte)(b ^ 0x5A));
    }

    /// <summary>Flips the bits of <paramref name="mask"/> in the byte at <paramref name="offset"/>.</summary>
    public static void FlipBitAt(string path, long offset, byte mask)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
        file.Position = offset;
        int original = file.ReadByte();
        file.Position = offset;
        file.WriteByte((byte)(original ^ mask));
    }

    /// <summary>Zeroes <paramref name="length"/> bytes from <paramref name="offset"/>, as a lost sector would read.</summary>
    public static void ZeroAt(string path, long offset, int length)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite);
        file.Position = offset;
        file.Write(new byte[length]);
    }

    public static int IndexOf(byte[] haystack, byte[] needle) => haystack.AsSpan().IndexOf(needle);

    /// <summary>Asserts every key has its expected value; null means deleted.</summary>
    public static async Task AssertContentsAsync(FasterRecordStore store, Dictionary<int, byte[]?> expected)
    {
        foreach ((int key, byte[]? value) in expected)
        {
            byte[]? actual = await ReadAsync(store, key);
            if (value is null)
            {
                Assert.True(actual is null, $"key {key} was deleted but came back");
            }
            else
            {
                Assert.True(actual is not null && value.AsSpan().SequenceEqual(actual), $"key {key} lost its newest value");
            }
        }
    }
}
