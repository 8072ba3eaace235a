using System;
using System.Buffers.Binary;

namespace KeyValueStore.Extensions.DependencyInjection.Caching;

/// <summary>
/// How a cached value is stored: the value itself behind a fixed header that carries its expiry, so that the record
/// alone says whether it has expired (no side table to keep in step with it).
/// </summary>
/// <remarks>
/// Layout, little-endian: format (1 byte, 1), the moment it expires (8, Unix milliseconds), its absolute expiry (8,
/// <see cref="long.MaxValue"/> for none), its sliding window (8, milliseconds, 0 for none), then the value's bytes.
/// The moment it expires is the earlier of the absolute expiry and the last access plus the sliding window.
/// </remarks>
internal readonly struct CacheEntry
{
    public const long Never = long.MaxValue;
    private const byte Format = 1;
    private const int HeaderSize = 25;

    private CacheEntry(long expiresAt, long absoluteExpiresAt, long slidingMs)
    {
        ExpiresAt = expiresAt;
        AbsoluteExpiresAt = absoluteExpiresAt;
        SlidingMs = slidingMs;
    }

    /// <summary>Gets the moment the entry expires, in Unix milliseconds; <see cref="Never"/> for an entry that never does.</summary>
    public long ExpiresAt { get; }

    /// <summary>Gets the absolute expiry, in Unix milliseconds; <see cref="Never"/> for none.</summary>
    public long AbsoluteExpiresAt { get; }

    /// <summary>Gets the sliding window in milliseconds; 0 for none.</summary>
    public long SlidingMs { get; }

    /// <summary>Gets whether each read moves the expiry forward.</summary>
    public bool Slides => SlidingMs > 0;

    /// <summary>The entry's expiry for a value set now with <paramref name="absoluteExpiresAt"/> and <paramref name="slidingMs"/>.</summary>
    public static CacheEntry SetAt(long now, long absoluteExpiresAt, long slidingMs) =>
        new(Math.Min(absoluteExpiresAt, slidingMs > 0 ? SaturatingAdd(now, slidingMs) : Never), absoluteExpiresAt, slidingMs);

    /// <summary>The stored bytes: the header, then <paramref name="value"/>.</summary>
    public byte[] Wrap(ReadOnlySpan<byte> value)
    {
        byte[] stored = new byte[HeaderSize + value.Length];
        stored[0] = Format;
        BinaryPrimitives.WriteInt64LittleEndian(stored.AsSpan(1), ExpiresAt);
        BinaryPrimitives.WriteInt64LittleEndian(stored.AsSpan(9), AbsoluteExpiresAt);
        BinaryPrimitives.WriteInt64LittleEndian(stored.AsSpan(17), SlidingMs);
        value.CopyTo(stored.AsSpan(HeaderSize));
        return stored;
    }

    /// <summary>Reads the header of <paramref name="stored"/>.</summary>
    /// <exception cref="CacheEntryFormatException">The bytes are not a cache entry: the store under <paramref name="key"/> holds something else.</exception>
    public static CacheEntry Read(string key, byte[] stored)
    {
        if (stored.Length < HeaderSize || stored[0] != Format)
        {
            throw new CacheEntryFormatException(key, stored.Length);
        }

        return new CacheEntry(
            BinaryPrimitives.ReadInt64LittleEndian(stored.AsSpan(1)),
            BinaryPrimitives.ReadInt64LittleEndian(stored.AsSpan(9)),
            BinaryPrimitives.ReadInt64LittleEndian(stored.AsSpan(17)));
    }

    /// <summary>The value's bytes in <paramref name="stored"/>, copied out: a caller may keep and change them.</summary>
    public static byte[] ValueOf(byte[] stored) => stored.AsSpan(HeaderSize).ToArray();

    /// <summary>
    /// The store's compaction filter: true for a stored entry that has expired by <paramref name="time"/>'s clock. A
    /// record that is not an entry throws, and the store then keeps it.
    /// </summary>
    public static Func<byte[], bool> HasExpiredOn(TimeProvider time) =>
        stored => Read(string.Empty, stored).HasExpiredAt(time.GetUtcNow().ToUnixTimeMilliseconds());

    /// <summary>Whether the entry has expired at <paramref name="now"/>.</summary>
    public bool HasExpiredAt(long now) => now >= ExpiresAt;

    /// <summary>The entry after a read at <paramref name="now"/>: its sliding window starts again, never past its absolute expiry.</summary>
    public CacheEntry ReadAt(long now) => SetAt(now, AbsoluteExpiresAt, SlidingMs);

    /// <summary>Rewrites the header of <paramref name="stored"/> in place with this entry's expiry.</summary>
    public void Restamp(byte[] stored) => BinaryPrimitives.WriteInt64LittleEndian(stored.AsSpan(1), ExpiresAt);

    private static long SaturatingAdd(long a, long b) => a > Never - b ? Never : a + b;
}
